"""SQLite FTS5 peer of bench/peers (Debian's libsqlite3 through Python's sqlite3 module).

Settings closest to the engine: tokenizer "porter unicode61 remove_diacritics 2"
(Porter stemming over Unicode words with diacritics folded), ranking by FTS5's
built-in bm25(), whose k1 = 1.2 and b = 0.75 are fixed in SQLite (no setting
changes them) and whose length normalisation is per row, not per column. In the
split layout the title column is weighted 0.25 (bm25's column weights scale the
term frequencies). FTS5 has no stopword list: stopwords are indexed, and the
driver drops the 33 Lucene stopwords from queries. Query words are quoted and
OR-ed, so nothing is read as FTS5 syntax. Date and type are UNINDEXED columns
tested in the WHERE clause.
"""
import os
import re
import sqlite3
from peer_protocol import STOPWORDS, rows, serve

WORD = re.compile(r"\w+", re.UNICODE)


class SqlitePeer:
    def __init__(self):
        self.db = None

    def build(self, corpus, index_dir, split):
        os.makedirs(index_dir, exist_ok=True)
        path = os.path.join(index_dir, "fts5.db")
        if os.path.exists(path):
            os.remove(path)
        db = sqlite3.connect(path)
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        db.execute(
            "CREATE VIRTUAL TABLE docs USING fts5(title, text, article UNINDEXED, date UNINDEXED, type UNINDEXED, "
            "tokenize = 'porter unicode61 remove_diacritics 2')"
        )
        with db:
            db.executemany(
                "INSERT INTO docs(title, text, article, date, type) VALUES (?, ?, ?, ?, ?)",
                ((title, text, article, date, kind) if split else ("", title + " " + text, article, date, kind)
                 for _, article, date, kind, title, text in rows(corpus)),
            )
        # Merge the b-trees built during the load, as one does before serving.
        with db:
            db.execute("INSERT INTO docs(docs) VALUES ('optimize')")
        db.close()

    def open(self, index_dir, split):
        self.db = sqlite3.connect(os.path.join(index_dir, "fts5.db"), check_same_thread=False)
        weights = "0.25, 1.0" if split else "0.0, 1.0"
        self.sql = "SELECT article FROM docs WHERE docs MATCH ? %s ORDER BY bm25(docs, " + weights + ") LIMIT ?"

    def match(self, text):
        words = []
        for word in WORD.findall(text.lower()):
            if word not in STOPWORDS and word not in words:
                words.append(word)
        return " OR ".join('"%s"' % w.replace('"', '""') for w in words)

    def run(self, text, k, flt):
        match = self.match(text)
        if not match:
            return []
        if flt is None:
            return self.db.execute(self.sql % "", (match, k)).fetchall()
        date_from, date_to, kind = flt
        return self.db.execute(self.sql % "AND date BETWEEN ? AND ? AND type = ?", (match, date_from, date_to, kind, k)).fetchall()

    def search(self, text, k, flt):
        return len(self.run(text, k, flt))

    def rank(self, text, k):
        seen = {}
        for (article,) in self.run(text, k, None):
            seen.setdefault(article, None)
        return list(seen)

    def versions(self):
        return {"sqlite": sqlite3.sqlite_version}

    def close(self):
        if self.db is not None:
            self.db.close()


if __name__ == "__main__":
    serve(SqlitePeer)
