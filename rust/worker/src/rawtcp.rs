//! The baseline a transfer leg is reported against: the same bytes copied over a plain loopback
//! TCP connection (std::net, no gRPC, no HTTP/2, no blob store), timed by the same warm-up and
//! rounds in the same trial. One op moves the whole payload one way into a fresh buffer, as a leg
//! does: `Download` = the peer writes it and we read it; `Upload` = we write it and the peer reads
//! it and answers one byte once it has all of it.
use codecbench_proto::v1::Operation;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::thread::JoinHandle;

pub struct RawTcp {
    stream: TcpStream,
    payload: Arc<Vec<u8>>,
    direction: Operation,
    peer: Option<JoinHandle<std::io::Result<()>>>,
}

impl RawTcp {
    /// A connected pair on 127.0.0.1 (an ephemeral port), the peer on its own thread.
    pub fn connect(payload: Arc<Vec<u8>>, direction: Operation) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let (bytes, len) = (payload.clone(), payload.len());
        let peer = std::thread::spawn(move || -> std::io::Result<()> {
            let (mut s, _) = listener.accept()?;
            s.set_nodelay(true)?;
            let mut ask = [0u8; 1];
            loop {
                match direction {
                    Operation::Upload => {
                        let mut got = Vec::with_capacity(len);
                        if (&mut s).take(len as u64).read_to_end(&mut got)? < len {
                            return Ok(()); // the timing side closed
                        }
                        std::hint::black_box(&got);
                        s.write_all(&[1])?;
                    }
                    _ => {
                        if s.read(&mut ask)? == 0 {
                            return Ok(());
                        }
                        s.write_all(&bytes)?;
                    }
                }
            }
        });
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        Ok(Self { stream, payload, direction, peer: Some(peer) })
    }

    /// One op: the whole payload across the connection, one way.
    pub fn copy(&mut self) -> std::io::Result<usize> {
        let len = self.payload.len();
        if self.direction == Operation::Upload {
            self.stream.write_all(&self.payload)?;
            let mut ack = [0u8; 1];
            self.stream.read_exact(&mut ack)?;
            return Ok(len);
        }
        self.stream.write_all(&[1])?;
        let mut got = Vec::with_capacity(len);
        let n = (&mut self.stream).take(len as u64).read_to_end(&mut got)?;
        if n < len {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, format!("the peer sent {n} of {len} bytes")));
        }
        Ok(std::hint::black_box(got).len())
    }
}

impl Drop for RawTcp {
    fn drop(&mut self) {
        let _ = self.stream.shutdown(Shutdown::Both);
        if let Some(peer) = self.peer.take() {
            let _ = peer.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_directions_move_every_byte_each_op() {
        let payload = Arc::new((0..3_000_000u32).map(|i| i as u8).collect::<Vec<_>>());
        for direction in [Operation::Upload, Operation::Download] {
            let mut raw = RawTcp::connect(payload.clone(), direction).unwrap();
            for _ in 0..3 {
                assert_eq!(raw.copy().unwrap(), payload.len(), "{direction:?}");
            }
        }
    }
}
