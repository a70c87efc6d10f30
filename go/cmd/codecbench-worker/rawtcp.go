package main

// The baseline a transfer leg is reported against (the Rust worker's rawtcp.rs): the same bytes
// copied over a plain loopback TCP connection (net, no gRPC, no HTTP/2, no blob store), timed by
// the same warm-up and rounds. One op moves the whole payload one way into a fresh buffer:
// download = the peer writes it and we read it; upload = we write it and the peer reads it and
// answers one byte once it has all of it.

import (
	"fmt"
	"io"
	"net"

	pb "codecbench/go/gen/codecbench/v1"
)

type rawTCP struct {
	conn      *net.TCPConn
	payload   []byte
	direction pb.Operation
	listener  net.Listener
	peerDone  chan error
}

func connectRawTCP(payload []byte, direction pb.Operation) (*rawTCP, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &rawTCP{payload: payload, direction: direction, listener: l, peerDone: make(chan error, 1)}
	go func() { r.peerDone <- r.peer() }()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		l.Close()
		return nil, err
	}
	r.conn = c.(*net.TCPConn)
	_ = r.conn.SetNoDelay(true)
	return r, nil
}

func (r *rawTCP) peer() error {
	c, err := r.listener.Accept()
	if err != nil {
		return err
	}
	defer c.Close()
	ask := make([]byte, 1)
	for {
		if r.direction == pb.Operation_OPERATION_UPLOAD {
			got := make([]byte, len(r.payload))
			if _, err := io.ReadFull(c, got); err != nil {
				return nil // the timing side closed
			}
			measureSink = got
			if _, err := c.Write([]byte{1}); err != nil {
				return err
			}
			continue
		}
		if _, err := c.Read(ask); err != nil {
			return nil
		}
		if _, err := c.Write(r.payload); err != nil {
			return err
		}
	}
}

var measureSink []byte

// copy is one op: the whole payload across the connection, one way.
func (r *rawTCP) copy() (any, error) {
	if r.direction == pb.Operation_OPERATION_UPLOAD {
		if _, err := r.conn.Write(r.payload); err != nil {
			return nil, err
		}
		ack := make([]byte, 1)
		_, err := io.ReadFull(r.conn, ack)
		return len(r.payload), err
	}
	if _, err := r.conn.Write([]byte{1}); err != nil {
		return nil, err
	}
	got := make([]byte, len(r.payload))
	if n, err := io.ReadFull(r.conn, got); err != nil {
		return nil, fmt.Errorf("the peer sent %d of %d bytes: %w", n, len(r.payload), err)
	}
	return got, nil
}

func (r *rawTCP) close() {
	r.conn.Close()
	r.listener.Close()
	<-r.peerDone
}
