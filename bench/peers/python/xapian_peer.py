"""Xapian peer of bench/peers (Debian python3-xapian, run by /usr/bin/python3).

Settings closest to the engine: the original Porter stemmer (xapian.Stem("porter"),
not Xapian's default Snowball "english"), the 33 Lucene stopwords, stemmed terms
only (STEM_ALL), no positions, BM25Weight(k1 0.6, k2 0, k3 1, b 0.75,
min_normlen 0.5) - Xapian's own BM25, whose idf and length normalisation differ
from Lucene's. Xapian has no per-field lengths: in the split layout the title is
indexed with the prefix S and its query terms weighted 0.25 with OP_SCALE_WEIGHT,
while the document length covers both fields. Date is a value slot (YYYYMMDD
text, so ranges compare as strings) and type a boolean term, combined with
OP_FILTER. Top-k with Xapian's default matcher (it prunes on weight bounds).
"""
import os
import xapian
from peer_protocol import STOPWORDS, rows, serve

DATE_SLOT = 0
TITLE_WEIGHT = 0.25


def stopper():
    s = xapian.SimpleStopper()
    for word in STOPWORDS:
        s.add(word)
    return s


class XapianPeer:
    def __init__(self):
        self.stem = xapian.Stem("porter")
        self.stopper = stopper()
        self.db = None

    def build(self, corpus, index_dir, split):
        db = xapian.WritableDatabase(index_dir, xapian.DB_CREATE_OR_OVERWRITE)
        generator = xapian.TermGenerator()
        generator.set_stemmer(self.stem)
        generator.set_stemming_strategy(xapian.TermGenerator.STEM_ALL)
        generator.set_stopper(self.stopper)
        generator.set_stopper_strategy(xapian.TermGenerator.STOP_ALL)
        for pid, article, date, kind, title, text in rows(corpus):
            doc = xapian.Document()
            generator.set_document(doc)
            if split:
                generator.index_text_without_positions(text)
                generator.index_text_without_positions(title, 1, "S")
            else:
                generator.index_text_without_positions(title + " " + text)
            doc.add_value(DATE_SLOT, "%08d" % date)
            doc.add_boolean_term("XT" + kind)
            doc.set_data(article)
            db.add_document(doc)
        db.commit()
        db.close()

    def open(self, index_dir, split):
        self.split = split
        self.db = xapian.Database(index_dir)
        self.enquire = xapian.Enquire(self.db)
        self.enquire.set_weighting_scheme(xapian.BM25Weight(0.6, 0, 1, 0.75, 0.5))
        self.parser = xapian.QueryParser()
        self.parser.set_stemmer(self.stem)
        self.parser.set_stemming_strategy(xapian.QueryParser.STEM_ALL)
        self.parser.set_stopper(self.stopper)
        self.parser.set_default_op(xapian.Query.OP_OR)

    def query(self, text, flt):
        # Flags 0: the text is words, never query syntax.
        query = self.parser.parse_query(text, 0)
        if self.split:
            title = xapian.Query(xapian.Query.OP_SCALE_WEIGHT, self.parser.parse_query(text, 0, "S"), TITLE_WEIGHT)
            query = xapian.Query(xapian.Query.OP_OR, query, title)
        if flt is not None:
            date_from, date_to, kind = flt
            allowed = xapian.Query(
                xapian.Query.OP_AND,
                xapian.Query("XT" + kind),
                xapian.Query(xapian.Query.OP_VALUE_RANGE, DATE_SLOT, "%08d" % date_from, "%08d" % date_to),
            )
            query = xapian.Query(xapian.Query.OP_FILTER, query, allowed)
        return query

    def search(self, text, k, flt):
        self.enquire.set_query(self.query(text, flt))
        return self.enquire.get_mset(0, k).size()

    def rank(self, text, k):
        self.enquire.set_query(self.query(text, None))
        seen = {}
        for match in self.enquire.get_mset(0, k):
            seen.setdefault(match.document.get_data().decode("utf-8"), None)
        return list(seen)

    def versions(self):
        return {"xapian": xapian.version_string()}

    def close(self):
        if self.db is not None:
            self.db.close()


if __name__ == "__main__":
    serve(XapianPeer)
