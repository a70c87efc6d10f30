package dev.codecbench.worker.codec;

/**
 * One strict pass over a BSON document's bytes, by the rules of bsonspec.org: every length agrees
 * with where its value ends, documents end with their 0x00 terminator exactly at their declared
 * size, element types are known, booleans are 0 or 1, strings are terminated and UTF-8, keys are
 * UTF-8 C strings. Nothing is materialised.
 *
 * <p>Why it exists: bson4jackson reads a document as a stream of elements and trusts it (embedded
 * document sizes, string terminators and boolean bytes are not checked), and org.mongodb:bson
 * decodes invalid UTF-8 to replacement characters. The BSON corpus's decodeErrors cases must be
 * rejected by Java's bson decode, so the codec runs this pass before bson4jackson reads (part of
 * the timed typed decode, and said so in the codec's notes).
 */
final class BsonValidator {
  private final byte[] b;

  private BsonValidator(byte[] b) {
    this.b = b;
  }

  /** Throws a CodecException naming the first problem and its byte offset. */
  static void validate(byte[] payload) throws CodecException {
    try {
      BsonValidator v = new BsonValidator(payload);
      int end = v.document(0, payload.length);
      if (end != payload.length) {
        throw v.error(end, (payload.length - end) + " bytes after the document");
      }
    } catch (Invalid e) {
      throw new CodecException("bson decode: " + e.getMessage());
    } catch (StackOverflowError e) {
      throw new CodecException("bson decode: documents nested deeper than the validator's stack");
    }
  }

  private static final class Invalid extends RuntimeException {
    Invalid(String message) {
      super(message, null, false, false);
    }
  }

  private Invalid error(int at, String what) {
    return new Invalid(what + " at byte " + at);
  }

  private int int32(int at, int limit) {
    if (at + 4 > limit) {
      throw error(at, "int32 runs past the end of its document");
    }
    return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
  }

  /** A document starting at {@code at} that must end by {@code limit}; returns where it ends. */
  private int document(int at, int limit) {
    int size = int32(at, limit);
    if (size < 5) {
      throw error(at, "document size " + size + " is below the minimum of 5");
    }
    if ((long) at + size > limit) {
      throw error(at, "document size " + size + " runs past its container (" + (limit - at) + " bytes left)");
    }
    int end = at + size;
    int p = at + 4;
    while (true) {
      if (p >= end) {
        throw error(p, "document has no terminator");
      }
      int type = b[p] & 0xff;
      if (type == 0) {
        if (p != end - 1) {
          throw error(p, "document terminator before the document's declared end");
        }
        return end;
      }
      p = cstring(p + 1, end - 1, "key");
      p = value(type, p, end - 1);
    }
  }

  /** A value of {@code type} at {@code p}, inside a document whose terminator is at {@code limit}. */
  private int value(int type, int p, int limit) {
    return switch (type) {
      case 0x01, 0x09, 0x11, 0x12 -> fixed(p, 8, limit);
      case 0x02, 0x0D, 0x0E -> string(p, limit);
      case 0x03, 0x04 -> document(p, limit);
      case 0x05 -> binary(p, limit);
      case 0x06, 0x0A, 0x7F, 0xFF -> p;
      case 0x07 -> fixed(p, 12, limit);
      case 0x08 -> {
        fixed(p, 1, limit);
        if (b[p] != 0 && b[p] != 1) {
          throw error(p, "boolean byte " + (b[p] & 0xff) + " is neither 0 nor 1");
        }
        yield p + 1;
      }
      case 0x0B -> cstring(cstring(p, limit, "regex pattern"), limit, "regex options");
      case 0x0C -> fixed(string(p, limit), 12, limit);
      case 0x0F -> codeWithScope(p, limit);
      case 0x10 -> fixed(p, 4, limit);
      case 0x13 -> fixed(p, 16, limit);
      default -> throw error(p - 1, "unknown element type 0x" + Integer.toHexString(type));
    };
  }

  private int fixed(int p, int n, int limit) {
    if (p + n > limit) {
      throw error(p, "value of " + n + " bytes runs past the end of its document");
    }
    return p + n;
  }

  private int string(int p, int limit) {
    int len = int32(p, limit);
    if (len < 1) {
      throw error(p, "string length " + len + " (at least 1: the terminator)");
    }
    if ((long) p + 4 + len > limit) {
      throw error(p, "string length " + len + " runs past the end of its document");
    }
    int end = p + 4 + len;
    if (b[end - 1] != 0) {
      throw error(end - 1, "string is not null-terminated");
    }
    utf8(p + 4, end - 1);
    return end;
  }

  private int cstring(int p, int limit, String what) {
    int q = p;
    while (q < limit && b[q] != 0) {
      q++;
    }
    if (q >= limit) {
      throw error(p, what + " runs past the end of its document");
    }
    utf8(p, q);
    return q + 1;
  }

  private int binary(int p, int limit) {
    int len = int32(p, limit);
    if (len < 0) {
      throw error(p, "binary length " + len);
    }
    int data = p + 5;
    if ((long) data + len > limit) {
      throw error(p, "binary length " + len + " runs past the end of its document");
    }
    if (b[p + 4] == 0x02) {
      // Old binary subtype: an int32 length of its own, 4 less than the outer one.
      int inner = int32(data, data + len);
      if (inner != len - 4) {
        throw error(data, "binary subtype 2 inner length " + inner + " does not match " + (len - 4));
      }
    }
    return data + len;
  }

  private int codeWithScope(int p, int limit) {
    int total = int32(p, limit);
    if (total < 4 + 5 + 5 || (long) p + total > limit) {
      throw error(p, "code_w_scope length " + total + " is invalid here");
    }
    int end = p + total;
    int afterCode = string(p + 4, end);
    int afterScope = document(afterCode, end);
    if (afterScope != end) {
      throw error(afterScope, "code_w_scope length " + total + " does not match its code and scope");
    }
    return end;
  }

  /** Strict UTF-8 (no overlong forms, no surrogates, at most U+10FFFF). */
  private void utf8(int from, int to) {
    int i = from;
    while (i < to) {
      int c = b[i] & 0xff;
      if (c < 0x80) {
        i++;
        continue;
      }
      int n;
      int min;
      if (c >= 0xc2 && c <= 0xdf) {
        n = 1;
        min = 0x80;
      } else if (c >= 0xe0 && c <= 0xef) {
        n = 2;
        min = 0x800;
      } else if (c >= 0xf0 && c <= 0xf4) {
        n = 3;
        min = 0x10000;
      } else {
        throw error(i, "invalid UTF-8 lead byte 0x" + Integer.toHexString(c));
      }
      if (i + n >= to) {
        throw error(i, "truncated UTF-8 sequence");
      }
      int cp = c & (0x3f >> n);
      for (int k = 1; k <= n; k++) {
        int cc = b[i + k] & 0xff;
        if ((cc & 0xc0) != 0x80) {
          throw error(i + k, "invalid UTF-8 continuation byte");
        }
        cp = cp << 6 | (cc & 0x3f);
      }
      if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        throw error(i, "invalid UTF-8 code point");
      }
      i += n + 1;
    }
  }
}
