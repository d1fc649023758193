package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"flag"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// runFill writes GIB GiB of RECORD-SIZE records into partition 0 of TOPIC (acks=1,
// -partitions N: record i into partition i mod N,
// uncompressed), each with a key "k<offset>" and a timestamp STEP ms after the previous one,
// the first STEP*records ms before now (so every timestamp is in the past and distinct):
// the large topic of the console's browse benchmark. Prints the record count and the
// first timestamp, so the reader can compute record i's timestamp (first + i*step).
func runFill(bootstrap, topic string, argv []string) {
	fl := flag.NewFlagSet("fill", flag.ExitOnError)
	gib := fl.Float64("gib", 10, "GiB of record values to write")
	size := fl.Int("record-size", 1024, "value bytes per record")
	step := fl.Int64("step-ms", 1, "timestamp step between records")
	partitions := fl.Int64("partitions", 1, "partitions to spread the records over (record i into i mod N)")
	_ = fl.Parse(argv)
	n := int64(*gib * (1 << 30) / float64(*size))
	first := time.Now().Add(-time.Duration(n**step+60000) * time.Millisecond).UnixMilli()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic),
		kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite(), kgo.ProducerLinger(5*time.Millisecond),
		kgo.MaxBufferedRecords(100000))
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	value := make([]byte, *size)
	rand.Read(value)
	var failed atomic.Int64
	ctx := context.Background()
	start := time.Now()
	for i := int64(0); i < n; i++ {
		v := make([]byte, *size)
		copy(v, value)
		binary.BigEndian.PutUint64(v, uint64(i))
		r := &kgo.Record{Partition: int32(i % *partitions), Key: []byte("k" + itoa(i)), Value: v, Timestamp: time.UnixMilli(first + i**step)}
		cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
			if err != nil {
				failed.Add(1)
			}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		die("flush: %v", err)
	}
	if failed.Load() > 0 {
		die("%d records failed", failed.Load())
	}
	secs := time.Since(start).Seconds()
	emit(map[string]any{"records": n, "first_timestamp_ms": first, "timestamp_step_ms": *step,
		"seconds": secs, "mib_s": float64(n) * float64(*size) / secs / (1 << 20)})
}

func itoa(i int64) string {
	var b [20]byte
	p := len(b)
	if i == 0 {
		return "0"
	}
	for i > 0 {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
	}
	return string(b[p:])
}
