package dev.codecbench.worker.codec;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import org.codehaus.stax2.io.EscapingWriterFactory;

/**
 * Woodstox writes a carriage return as {@code &#xd;} and '>' only after ']'; the wire form
 * (proto/README.md) has {@code &#13;} and {@code &gt;}. This is Woodstox's hook for a text
 * escaper, with the README's escapes; a character XML 1.0 cannot hold (C0 controls other than
 * tab, LF and CR; U+FFFE, U+FFFF) is an error, as in Woodstox's own escaping.
 */
final class XmlEscapes implements EscapingWriterFactory {
  @Override
  public Writer createEscapingWriterFor(Writer raw, String encoding) {
    return new Escaping(raw);
  }

  @Override
  public Writer createEscapingWriterFor(OutputStream out, String encoding) {
    throw new UnsupportedOperationException("Woodstox asks for a Writer");
  }

  private static final class Escaping extends Writer {
    private final Writer raw;

    Escaping(Writer raw) {
      this.raw = raw;
    }

    @Override
    public void write(String s, int off, int len) throws IOException {
      int end = off + len;
      int run = off;
      for (int i = off; i < end; i++) {
        String e = escape(s.charAt(i));
        if (e != null) {
          raw.write(s, run, i - run);
          raw.write(e);
          run = i + 1;
        }
      }
      raw.write(s, run, end - run);
    }

    @Override
    public void write(char[] buf, int off, int len) throws IOException {
      int end = off + len;
      int run = off;
      for (int i = off; i < end; i++) {
        String e = escape(buf[i]);
        if (e != null) {
          raw.write(buf, run, i - run);
          raw.write(e);
          run = i + 1;
        }
      }
      raw.write(buf, run, end - run);
    }

    @Override
    public void write(int c) throws IOException {
      String e = escape((char) c);
      if (e != null) {
        raw.write(e);
      } else {
        raw.write(c);
      }
    }

    /** The escape of c, or null when c is written as it is. */
    private static String escape(char c) {
      if (c > '>') {
        if (c >= '\uFFFE') {
          throw invalid(c);
        }
        return null;
      }
      return switch (c) {
        case '<' -> "&lt;";
        case '>' -> "&gt;";
        case '&' -> "&amp;";
        case '\r' -> "&#13;";
        case '\t', '\n' -> null;
        default -> {
          if (c < 0x20) {
            throw invalid(c);
          }
          yield null;
        }
      };
    }

    private static XmlCodec.Rejected invalid(char c) {
      return new XmlCodec.Rejected(String.format("U+%04X cannot be written in XML 1.0 text", (int) c));
    }

    @Override
    public void flush() throws IOException {
      raw.flush();
    }

    @Override
    public void close() throws IOException {
      raw.close();
    }
  }
}
