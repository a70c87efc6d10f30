package dev.codecbench.worker.codec;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.ObjectCodec;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.cbor.CBORGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;

/**
 * CBOR carries uint64 natively (proto/README.md): an unsigned integer past 2^63 - 1 is major type
 * 0 with an 8-byte argument. Jackson's CBORGenerator writes such a BigInteger as a bignum (tag 2),
 * which is not the contract's form; this factory's generator writes it as the integer it is
 * (Jackson's parser reads that form back as a BigInteger).
 */
final class CborUint64 extends CBORFactory {
  private static final long serialVersionUID = 1L;

  // Every way to a generator: the public ones do not go through _createUTF8Generator.
  @Override
  public CBORGenerator createGenerator(OutputStream out, JsonEncoding enc) throws IOException {
    return createGenerator(out);
  }

  @Override
  public CBORGenerator createGenerator(OutputStream out) throws IOException {
    IOContext ctxt = _createContext(_createContentReference(out), false);
    return new Generator(ctxt, _generatorFeatures, _formatGeneratorFeatures, _objectCodec, _decorate(out, ctxt));
  }

  @Override
  protected CBORGenerator _createUTF8Generator(OutputStream out, IOContext ctxt) throws IOException {
    return new Generator(ctxt, _generatorFeatures, _formatGeneratorFeatures, _objectCodec, out);
  }

  private static final class Generator extends CBORGenerator {
    Generator(IOContext ctxt, int features, int formatFeatures, ObjectCodec codec, OutputStream out) {
      super(ctxt, features, formatFeatures, codec, out);
    }

    @Override
    public void writeNumber(BigInteger v) throws IOException {
      if (v == null || v.signum() <= 0 || v.bitLength() != 64) {
        super.writeNumber(v);
        return;
      }
      _verifyValueWrite("write number");
      long bits = v.longValue();
      byte[] b = new byte[9];
      b[0] = 0x1b; // major type 0, 8-byte argument
      for (int i = 0; i < 8; i++) {
        b[8 - i] = (byte) (bits >>> (8 * i));
      }
      writeBytes(b, 0, b.length);
    }
  }

}
