package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// streamAck is one line produce-stream prints per record: n is the input
// line's index from 0.
type streamAck struct {
	N         int64   `json:"n"`
	Partition int32   `json:"partition"`
	Offset    int64   `json:"offset"`
	Error     *string `json:"error"`
}

// produceStream (DRIVERS.md produce-stream): one long-lived idempotent
// producer for a whole run. Records come on stdin, one JSON object a line
// ({"key","value","partition"}), and are sent in that order as they arrive;
// each outcome is printed on stdout as soon as franz-go reports it. At the
// end of stdin it flushes; the answer is {"sent":n,"acked":a,"failed":f}.
// Not bounded by the command's 60 s context: the run lasts as long as stdin.
func produceStream(e *env, a args) (any, error) {
	var topic string
	idempotent := true
	var deliveryMs int64 = 120000
	for name, out := range map[string]any{"topic": &topic, "idempotent": &idempotent, "delivery_timeout_ms": &deliveryMs} {
		if err := a.field(name, out); err != nil {
			return nil, err
		}
	}
	acks, err := acksOf(a)
	if err != nil {
		return nil, err
	}
	opts := []kgo.Opt{kgo.RequiredAcks(acks), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RecordDeliveryTimeout(time.Duration(deliveryMs) * time.Millisecond)}
	if !idempotent {
		opts = append(opts, kgo.DisableIdempotentWrite())
	}
	cl, err := e.client(opts...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	var mu sync.Mutex
	enc := json.NewEncoder(os.Stdout)
	var acked, failed atomic.Int64
	var n int64
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var rec recordIn
		if len(in.Bytes()) == 0 {
			continue
		}
		if err := json.Unmarshal(in.Bytes(), &rec); err != nil {
			return nil, err
		}
		r := &kgo.Record{Topic: topic}
		if r.Key, err = b64(rec.Key); err != nil {
			return nil, err
		}
		if r.Value, err = b64(rec.Value); err != nil {
			return nil, err
		}
		if rec.Partition != nil {
			r.Partition = *rec.Partition
		}
		index := n
		n++
		cl.Produce(context.Background(), r, func(r *kgo.Record, perr error) {
			line := streamAck{N: index, Partition: r.Partition, Offset: r.Offset}
			if perr != nil {
				name, nerr := errorName(perr)
				if nerr != nil || name == nil {
					s := perr.Error()
					name = &s
				}
				line.Error, line.Offset = name, -1
				failed.Add(1)
			} else {
				acked.Add(1)
			}
			mu.Lock()
			defer mu.Unlock()
			enc.Encode(line)
		})
	}
	if err := in.Err(); err != nil {
		return nil, err
	}
	if err := cl.Flush(context.Background()); err != nil {
		return nil, err
	}
	return map[string]any{"sent": n, "acked": acked.Load(), "failed": failed.Load()}, nil
}
