// Reads a ZIP front to back with java.util.zip.ZipInputStream (never the central directory) from
// standard input, and prints one line per entry:
// name, method (0 stored, 8 deflated), size, and the CRC-32 of the bytes read (java.util.zip.CRC32,
// unsigned decimal), tab-separated. The stream checks each entry's CRC-32 and sizes against its
// headers itself and throws on a mismatch.
import java.io.BufferedInputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

public class ZipStreamList {
  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    byte[] buffer = new byte[1 << 20];
    try (ZipInputStream zip = new ZipInputStream(new BufferedInputStream(System.in, 1 << 20), StandardCharsets.UTF_8)) {
      for (ZipEntry entry; (entry = zip.getNextEntry()) != null; ) {
        CRC32 crc = new CRC32();
        long size = 0;
        for (int read; (read = zip.read(buffer)) > 0; size += read) crc.update(buffer, 0, read);
        out.println(entry.getName() + "\t" + entry.getMethod() + "\t" + size + "\t" + crc.getValue());
      }
    }
  }
}
