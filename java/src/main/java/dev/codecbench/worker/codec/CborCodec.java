package dev.codecbench.worker.codec;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;

/**
 * cbor (RFC 8949): jackson-dataformat-cbor into the same Java records as json, bson and msgpack,
 * one pre-built reader and writer per dataset. Jackson writes records as indefinite-length maps
 * (a bean has no size before it is written), arrays with their length, integers in the smallest
 * form, doubles as float64. Reading accepts what other writers choose: definite or indefinite
 * lengths, every integer width, float16/32/64, and an integer where a double is expected.
 */
public final class CborCodec extends JacksonCodec {
  private static final String ID = "cbor";
  /**
   * Jackson's parser keeps a value's tags in an array grown by 8 per tag (a run of n tags costs
   * n^2/4 bytes: 100,000 tags, 2.5 GB); no payload of ours has more than one tag per value.
   */
  static final int MAX_TAGS = 16;
  /** Major types 0 to 7, for messages. */
  private static final String[] TYPES = {
    "unsigned integer", "negative integer", "byte string", "text string", "array", "map", "tag",
    "float or simple value"
  };

  public CborCodec() {
    super(ID, CBORMapper.builder(new CborUint64())
        .enable(STRICT)
        // 1.5 into an int field is an error, not 1.
        .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
        .build());
  }

  /**
   * Not timed (verification runs it before the first decode). Jackson itself reads a declared
   * length in bounded pieces and fails at the end of the input, but it takes an indefinite-length
   * string's chunk that runs past the payload as the bytes there are (corrupt input decoding as a
   * shorter string), and a run of n tags costs it n^2/4 bytes. A flat walk of every item to the
   * end (the decodes read one value past the payload's to reject trailing data): each declared
   * string, byte string and chunk length, and each array and map count (at least one byte per
   * item), must fit in the bytes left; chunks must be definite strings of their string's type;
   * at most {@link #MAX_TAGS} tags on one value.
   */
  @Override
  public void validate(byte[] payload) throws CodecException {
    int at = 0;
    int tags = 0;
    while (at < payload.length) {
      int start = at;
      int major = (payload[at] & 0xff) >>> 5;
      int info = payload[at] & 0x1f;
      if (major == 6) {
        if (++tags > MAX_TAGS) {
          throw new CodecException(ID + " decode: more than " + MAX_TAGS + " tags on one value at byte " + start);
        }
      } else {
        tags = 0;
      }
      if (info == 31) {
        at++;
        switch (major) {
          case 2, 3 -> at = chunks(payload, at, major, start);
          case 4, 5, 7 -> {} // an indefinite-length array or map, or a break
          default -> throw new CodecException(ID + " decode: " + TYPES[major]
              + " with indefinite length (additional information 31) at byte " + start);
        }
        continue;
      }
      long arg = argument(payload, start);
      at = start + 1 + argumentBytes(info);
      long left = payload.length - at;
      switch (major) {
        case 2, 3 -> at += (int) fits(arg, 1, left, start, major, "bytes", "runs past");
        case 4 -> fits(arg, 1, left, start, major, "items", "cannot fit in");
        case 5 -> fits(arg, 2, left, start, major, "entries", "cannot fit in");
        default -> {} // integers, tags, simple values and floats: the head is the whole item
      }
    }
  }

  /** The chunks of an indefinite-length string from {@code at} to its break; where it ends. */
  private static int chunks(byte[] payload, int at, int major, int start) throws CodecException {
    while (true) {
      if (at >= payload.length) {
        throw new CodecException(ID + " decode: indefinite-length " + TYPES[major] + " at byte " + start
            + " has no break before the end of the payload");
      }
      if ((payload[at] & 0xff) == 0xff) {
        return at + 1;
      }
      int chunkMajor = (payload[at] & 0xff) >>> 5;
      int info = payload[at] & 0x1f;
      if (chunkMajor != major || info == 31) {
        throw new CodecException(ID + " decode: a chunk of the indefinite-length " + TYPES[major] + " at byte "
            + start + " is not a definite-length " + TYPES[major] + " (byte " + at + ")");
      }
      long n = argument(payload, at);
      int chunk = at;
      at += 1 + argumentBytes(info);
      at += (int) fits(n, 1, payload.length - at, chunk, major, "bytes", "runs past");
    }
  }

  /** {@code n} elements of at least {@code size} bytes each must fit in {@code left} bytes; n. */
  private static long fits(long n, int size, long left, int start, int major, String unit, String verb)
      throws CodecException {
    if (Long.compareUnsigned(n, left / size) > 0) {
      throw new CodecException(ID + " decode: " + TYPES[major] + " of " + Long.toUnsignedString(n) + " " + unit
          + " at byte " + start + " " + verb + " the " + left + " bytes left");
    }
    return n;
  }

  private static int argumentBytes(int info) {
    return info < 24 ? 0 : 1 << (info - 24);
  }

  /** The head's argument (unsigned; 64 bits in a long) of the item at {@code start}. */
  private static long argument(byte[] payload, int start) throws CodecException {
    int info = payload[start] & 0x1f;
    if (info >= 28) {
      throw new CodecException(ID + " decode: reserved additional information " + info + " at byte " + start);
    }
    int n = argumentBytes(info);
    if (start + 1 + n > payload.length) {
      throw new CodecException(ID + " decode: the " + TYPES[payload[start] >>> 5 & 7] + " head at byte " + start
          + " is cut off (" + n + " argument bytes, " + (payload.length - start - 1) + " left)");
    }
    if (n == 0) {
      return info;
    }
    long v = 0;
    for (int i = 1; i <= n; i++) {
      v = (v << 8) | (payload[start + i] & 0xff);
    }
    return v;
  }
}
