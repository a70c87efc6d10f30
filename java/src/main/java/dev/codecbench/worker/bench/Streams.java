package dev.codecbench.worker.bench;

import dev.codecbench.worker.codec.Codec;
import dev.codecbench.worker.codec.CodecException;
import dev.codecbench.worker.dataset.Dataset;
import dev.codecbench.worker.model.Records;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;

/**
 * The `streaming` mode's two ends, as a socket has them (rust/worker/src/trial.rs: STREAM_BUFFER,
 * Drain): a streaming encode writes into a {@link Drain}, a streaming decode reads a {@link
 * Chunked} input. Written here rather than taken from java.io: BufferedOutputStream and
 * BufferedInputStream pass a write or read at least as large as their buffer straight through
 * (Jackson moves its own 8000-byte buffer at once), so they would not bound what moves at a time.
 */
public final class Streams {
  /** What a socket write or read moves at a time: the streaming mode's buffer. */
  public static final int STREAM_BUFFER = 4096;

  private Streams() {}

  /**
   * The send side: every byte written goes into one STREAM_BUFFER-byte buffer, which is handed to
   * the far end each time it is full (and on flush); the far end touches each chunk, counts its
   * bytes and forgets it. No more than STREAM_BUFFER bytes are ever held here.
   */
  public static final class Drain extends OutputStream {
    private final byte[] buffer = new byte[STREAM_BUFFER];
    private int filled;
    private long drained;
    private int largestChunk;
    private int touched;

    @Override
    public void write(int b) {
      buffer[filled++] = (byte) b;
      if (filled == STREAM_BUFFER) {
        drain();
      }
    }

    @Override
    public void write(byte[] b, int off, int len) {
      Objects.checkFromIndexSize(off, len, b.length);
      while (len > 0) {
        int n = Math.min(len, STREAM_BUFFER - filled);
        System.arraycopy(b, off, buffer, filled, n);
        filled += n;
        off += n;
        len -= n;
        if (filled == STREAM_BUFFER) {
          drain();
        }
      }
    }

    /** Sends what is buffered, as a socket's flush does. */
    @Override
    public void flush() {
      if (filled > 0) {
        drain();
      }
    }

    private void drain() {
      // The far end: touches the chunk (its last byte), counts it and forgets it.
      touched += buffer[filled - 1];
      drained += filled;
      largestChunk = Math.max(largestChunk, filled);
      filled = 0;
    }

    /** Bytes handed to the far end so far. */
    public long drained() {
      return drained;
    }

    /** The largest chunk handed over at once (at most STREAM_BUFFER). */
    public int largestChunk() {
      return largestChunk;
    }

    /** What the far end read of the chunks (a store into this escaped object: the JIT keeps it). */
    public int touched() {
      return touched;
    }
  }

  /**
   * The receive side: the payload's bytes, of which each read returns at most STREAM_BUFFER (the
   * payload array is the network, outside the timed boundary as in every decode).
   */
  public static final class Chunked extends InputStream {
    private final byte[] payload;
    private int at;
    private int largestRead;

    public Chunked(byte[] payload) {
      this.payload = payload;
    }

    @Override
    public int read() {
      return at < payload.length ? payload[at++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      Objects.checkFromIndexSize(off, len, b.length);
      if (len == 0) {
        return 0;
      }
      if (at >= payload.length) {
        return -1;
      }
      int n = Math.min(Math.min(len, STREAM_BUFFER), payload.length - at);
      System.arraycopy(payload, at, b, off, n);
      at += n;
      largestRead = Math.max(largestRead, n);
      return n;
    }

    @Override
    public int available() {
      return Math.min(STREAM_BUFFER, payload.length - at);
    }

    /** The largest read served at once (at most STREAM_BUFFER). */
    public int largestRead() {
      return largestRead;
    }
  }

  /** One streaming encode (the timed op): records into a fresh Drain; returns the bytes sent. */
  public static <R> long encodeOnce(Codec codec, Dataset<R> dataset, Records<R> records) throws CodecException {
    Drain out = new Drain();
    codec.encodeStreaming(dataset, records, out);
    out.flush();
    return out.drained();
  }

  /** One streaming decode (the timed op): each record goes to the Sink and is dropped. */
  public static <R> long decodeOnce(Codec codec, Dataset<R> dataset, byte[] payload) throws CodecException {
    return codec.decodeStreaming(dataset, new Chunked(payload), Sink::consume);
  }
}
