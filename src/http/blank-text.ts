/**
 * Text a reader cannot see is blank: a query or a name made only of white
 * space (Unicode's White_Space, which holds more than `\s`: U+0085), of
 * default-ignorable code points (zero-width space U+200B, word joiner, soft
 * hyphen, BOM...), which a renderer shows as nothing, or of control characters
 * (NUL, BEL), which no stored name or text holds. Such a query would find
 * nothing (404) and such a name suggest nothing (200 []), where a
 * non-breaking space alone is refused as blank.
 */

/** The schema `pattern` a text must match to hold one visible character; a text failing it is answered "is blank". */
export const VISIBLE_CHARACTER_PATTERN = '[^\\p{White_Space}\\p{Default_Ignorable_Code_Point}\\p{Cc}]';
