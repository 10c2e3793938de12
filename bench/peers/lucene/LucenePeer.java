/*
 * Lucene 8 peer of bench/peers, run as a single source file:
 *   java -cp lucene-core.jar:lucene-analyzers-common.jar:lucene-queries.jar LucenePeer.java
 * Speaks the line protocol of bench/peers/lib/peer-process.ts on stdin/stdout.
 *
 * Settings closest to the engine: EnglishAnalyzer (standard tokenizer, possessive
 * removal, lower case, the 33 English stopwords, Porter stemming; no diacritic
 * folding), BM25Similarity(k1 0.6, b 0.75) at index and search time, distinct
 * query terms OR-ed, and in the split layout each term also searched in the
 * title field with boost 0.25, which is the engine's sum of two per-field
 * BM25 scores. Date (IntPoint) and type (StringField) are indexed fields used
 * as non-scoring FILTER clauses. Default merge policy, 256 MB indexing buffer
 * (the engine's segment size in this benchmark); search with the default top-k
 * collector (block-max WAND).
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;

public class LucenePeer {
  static final float K1 = 0.6f, B = 0.75f, TITLE_WEIGHT = 0.25f;
  final Analyzer analyzer = new EnglishAnalyzer();
  DirectoryReader reader;
  IndexSearcher searcher;
  boolean split = true;
  /** The throughput threads, started at the first repetition before its timing starts, and kept (as every peer keeps its pool). */
  ExecutorService pool;
  int poolThreads;

  public static void main(String[] args) throws Exception {
    LucenePeer peer = new LucenePeer();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] a = line.split("\t", -1);
      String reply;
      try {
        reply = peer.handle(a);
      } catch (Exception e) {
        reply = "{\"error\":" + quote(e.toString()) + "}";
      }
      System.out.println("@@ " + reply);
      System.out.flush();
      if (a[0].equals("quit")) break;
    }
    System.exit(0);
  }

  String handle(String[] a) throws Exception {
    switch (a[0]) {
      case "build": return "{\"seconds\":" + timed(() -> build(a[1], a[2], a[3].equals("split"))) + "}";
      case "open": return "{\"seconds\":" + timed(() -> open(a[1], a[2].equals("split"))) + "}";
      case "latency": return latency(readLines(a[1]), Integer.parseInt(a[2]), a[3], Double.parseDouble(a[4]));
      case "rank": return rank(readLines(a[1]), Integer.parseInt(a[2]));
      case "throughput": return throughput(readLines(a[1]), Integer.parseInt(a[2]), a[3], Integer.parseInt(a[4]), Double.parseDouble(a[5]), Double.parseDouble(a[6]));
      case "memory": return memory();
      case "versions": return "{\"java\":" + quote(System.getProperty("java.version")) + ",\"lucene\":" + quote(org.apache.lucene.util.Version.LATEST.toString()) + "}";
      case "quit": if (pool != null) pool.shutdownNow(); if (reader != null) reader.close(); return "{}";
      default: return "{\"error\":" + quote("unknown command " + a[0]) + "}";
    }
  }

  interface Action { void run() throws Exception; }

  static double timed(Action action) throws Exception {
    long t = System.nanoTime();
    action.run();
    return (System.nanoTime() - t) / 1e9;
  }

  static int dateNumber(String ymd) {
    return ymd.isEmpty() ? 0 : Integer.parseInt(ymd.replace("-", ""));
  }

  void build(String corpus, String dir, boolean split) throws IOException {
    IndexWriterConfig config = new IndexWriterConfig(analyzer);
    config.setSimilarity(new BM25Similarity(K1, B));
    config.setRAMBufferSizeMB(256);
    // Separate files per part (no compound file), so the report can tell postings from positions and stored fields.
    config.setUseCompoundFile(false);
    config.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
    try (IndexWriter writer = new IndexWriter(FSDirectory.open(Paths.get(dir)), config);
         BufferedReader rows = Files.newBufferedReader(Paths.get(corpus), StandardCharsets.UTF_8)) {
      String row;
      while ((row = rows.readLine()) != null) {
        if (row.isEmpty()) continue;
        // id, article, date, type, title, text
        String[] f = row.split("\t", -1);
        Document doc = new Document();
        doc.add(new StringField("article", f[1], Field.Store.YES));
        doc.add(new IntPoint("date", dateNumber(f[2])));
        doc.add(new StringField("type", f[3], Field.Store.NO));
        if (split) {
          doc.add(new TextField("title", f[4], Field.Store.NO));
          doc.add(new TextField("text", f[5], Field.Store.NO));
        } else {
          doc.add(new TextField("text", f[4] + " " + f[5], Field.Store.NO));
        }
        writer.addDocument(doc);
      }
      writer.commit();
    }
  }

  void open(String dir, boolean split) throws IOException {
    this.split = split;
    reader = DirectoryReader.open(FSDirectory.open(Paths.get(dir)));
    searcher = new IndexSearcher(reader);
    searcher.setSimilarity(new BM25Similarity(K1, B));
  }

  Query query(String text, String filter) throws IOException {
    Set<String> terms = new LinkedHashSet<>();
    try (TokenStream stream = analyzer.tokenStream("text", text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) terms.add(term.toString());
      stream.end();
    }
    BooleanQuery.Builder scoring = new BooleanQuery.Builder();
    for (String t : terms) {
      scoring.add(new TermQuery(new Term("text", t)), Occur.SHOULD);
      if (split) scoring.add(new BoostQuery(new TermQuery(new Term("title", t)), TITLE_WEIGHT), Occur.SHOULD);
    }
    if (filter.equals("-")) return scoring.build();
    String[] f = filter.split(":");
    return new BooleanQuery.Builder()
        .add(scoring.build(), Occur.MUST)
        .add(IntPoint.newRangeQuery("date", Integer.parseInt(f[0]), Integer.parseInt(f[1])), Occur.FILTER)
        .add(new TermQuery(new Term("type", f[2])), Occur.FILTER)
        .build();
  }

  String latency(List<String> queries, int k, String filter, double maxSeconds) throws IOException {
    StringBuilder ms = new StringBuilder();
    long hits = 0;
    long deadline = System.nanoTime() + (long) (maxSeconds * 1e9);
    for (String q : queries) {
      long t = System.nanoTime();
      TopDocs top = searcher.search(query(q, filter), k);
      hits += top.scoreDocs.length;
      long now = System.nanoTime();
      if (ms.length() > 0) ms.append(',');
      ms.append((now - t) / 1e6);
      if (now > deadline) break;
    }
    return "{\"ms\":[" + ms + "],\"hits\":" + hits + "}";
  }

  String rank(List<String> queries, int k) throws IOException {
    StringBuilder out = new StringBuilder("{\"rankings\":[");
    for (int i = 0; i < queries.size(); i++) {
      Set<String> articles = new LinkedHashSet<>();
      for (ScoreDoc hit : searcher.search(query(queries.get(i), "-"), k).scoreDocs) articles.add(searcher.doc(hit.doc).get("article"));
      out.append(i > 0 ? ",[" : "[");
      int j = 0;
      for (String id : articles) out.append(j++ > 0 ? "," : "").append(quote(id));
      out.append(']');
    }
    return out.append("]}").toString();
  }

  /**
   * Threads share one IndexSearcher (Lucene's intended use) and take queries from one counter, cycling the list until
   * the budget is spent or the whole list was taken and the minimum window has passed (node/repetition.ts's rule).
   */
  String throughput(List<String> queries, int k, String filter, int threads, double maxSeconds, double minSeconds) throws Exception {
    AtomicInteger next = new AtomicInteger();
    AtomicInteger answered = new AtomicInteger();
    ExecutorService pool = pool(threads);
    long start = System.nanoTime();
    long deadline = start + (long) (maxSeconds * 1e9);
    long window = start + (long) (minSeconds * 1e9);
    List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      futures.add(pool.submit(() -> {
        for (;;) {
          long now = System.nanoTime();
          if (now >= deadline || (next.get() >= queries.size() && now >= window)) break;
          int i = next.getAndIncrement();
          searcher.search(query(queries.get(i % queries.size()), filter), k);
          answered.incrementAndGet();
        }
        return null;
      }));
    }
    for (java.util.concurrent.Future<?> f : futures) f.get();
    double seconds = (System.nanoTime() - start) / 1e9;
    return "{\"seconds\":" + seconds + ",\"queries\":" + answered.get() + "}";
  }

  ExecutorService pool(int threads) {
    if (pool == null || poolThreads != threads) {
      if (pool != null) pool.shutdown();
      ThreadPoolExecutor started = (ThreadPoolExecutor) Executors.newFixedThreadPool(threads);
      started.prestartAllCoreThreads();
      pool = started;
      poolThreads = threads;
    }
    return pool;
  }

  static String memory() throws IOException {
    double rss = 0, peak = 0;
    for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
      if (line.startsWith("VmRSS:")) rss = Double.parseDouble(line.replaceAll("[^0-9]", "")) / 1024;
      if (line.startsWith("VmHWM:")) peak = Double.parseDouble(line.replaceAll("[^0-9]", "")) / 1024;
    }
    return "{\"rssMiB\":" + rss + ",\"peakRssMiB\":" + peak + "}";
  }

  static List<String> readLines(String file) throws IOException {
    List<String> lines = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(file), StandardCharsets.UTF_8)) if (!line.isEmpty()) lines.add(line);
    return lines;
  }

  static String quote(String s) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') out.append('\\').append(c);
      else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
      else out.append(c);
    }
    return out.append('"').toString();
  }
}
