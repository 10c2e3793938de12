/**
 * The characters the platform refuses in the names it keeps (file names, archive paths, user subjects
 * and group names): those that would make one name look like another, or like nothing.
 */

/**
 * The tag characters a subdivision flag is spelled with (UTS #51 ED-14a, emoji tag sequence): the black
 * flag U+1F3F4, a subdivision id in tag digits and lowercase tag letters, and CANCEL TAG U+E007F, as
 * 🏴 g b s c t CANCEL for Scotland. Only the flags vendors draw (UTS #51's RGI_Emoji_Tag_Sequence) are
 * allowed: any other well-formed one (🏴 u s c a CANCEL) shows as a plain black flag, so two names holding
 * different ones would look alike.
 */
const FLAG_TAG_CHARACTERS = String.raw`\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}`;
const FLAG_TAG = `[${FLAG_TAG_CHARACTERS}]`;
/** England, Scotland, Wales: the whole of RGI_Emoji_Tag_Sequence (emoji-sequences.txt; the same since Emoji 5.0). */
const RGI_SUBDIVISIONS = ['gbeng', 'gbsct', 'gbwls'];
/** An ASCII subdivision id as the tag characters spelling it (each its ASCII character + U+E0000), in regular-expression escapes. */
const inTagCharacters = (id: string) => Array.from(id, (c) => `\\u{${(0xe0000 + c.codePointAt(0)!).toString(16)}}`).join('');
const SUBDIVISION_ID = `(?:${RGI_SUBDIVISIONS.map(inTagCharacters).join('|')})`;
const LONGEST_SUBDIVISION_ID = Math.max(...RGI_SUBDIVISIONS.map((id) => id.length));
/** A black flag followed by a whole subdivision id and its CANCEL TAG. */
const FLAG_START = String.raw`\u{1F3F4}(?=${SUBDIVISION_ID}\u{E007F})`;
/**
 * A flag tag character or CANCEL TAG that is not part of such a flag: a stray one, one of an unterminated
 * sequence, one after another base than the black flag. Inside a flag, at most the whole id stands
 * between the black flag and the character, which bounds the look-behind.
 */
const STRAY_FLAG_TAG = String.raw`(?<!${FLAG_START}${FLAG_TAG}{0,${LONGEST_SUBDIVISION_ID}})[${FLAG_TAG_CHARACTERS}\u{E007F}]`;

/**
 * Characters that make one name display as another, or as nothing: control characters (Unicode's Cc:
 * C0, DEL and C1), line and paragraph separators, and every default-ignorable code point (what a
 * renderer shows as nothing: soft hyphen, zero-width space, word joiner, BOM, invisible operators
 * U+2061–U+2064, Hangul fillers, U+034F, U+180E, U+17B4, musical formatting U+1D173–U+1D17A, tag
 * characters U+E0000–U+E0FFF, and the bidirectional controls and marks U+061C, U+200E, U+200F,
 * U+202A–U+202E, U+2066–U+2069: 'invoice\u202Efdp.exe' shows as 'invoiceexe.pdf'), plus the braille
 * blank U+2800, which renders empty too. The zero-width joiner and non-joiner and the variation
 * selectors stay allowed: some scripts and emoji sequences need them. So do the tag digits and
 * lowercase tag letters, but only inside the flag of England, Scotland or Wales (STRAY_FLAG_TAG).
 */
const DECEPTIVE = String.raw`\p{Cc}\p{Zl}\p{Zp}\u2800[\p{Default_Ignorable_Code_Point}--[\u200c\u200d\p{Variation_Selector}${FLAG_TAG_CHARACTERS}\u{E007F}]]`;

/** Characters no file name or archive path may hold: the deceptive ones, and backslashes (a separator on Windows). The `v` flag allows the set difference. */
export const UNSAFE_IN_NAMES = new RegExp(String.raw`[\\${DECEPTIVE}]|${STRAY_FLAG_TAG}`, 'v');

/**
 * Characters no user subject or group name may hold (global: to list them): the deceptive ones, and
 * lone surrogates. Backslashes stay allowed, as in a domain account (`DOMAIN\user`).
 */
export const UNSAFE_IN_IDENTITIES = new RegExp(String.raw`[\p{Surrogate}${DECEPTIVE}]|${STRAY_FLAG_TAG}`, 'gv');
