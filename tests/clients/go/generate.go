package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// produceGenerated is DRIVERS.md's produce-generated: a bulk load too large
// for the argument string. Record i (0-based) of `count` goes to `partition`
// with key "k<i mod key_count>" and value "v<i>" padded with 'x' to
// value_size bytes, or a null value (a tombstone) when its round
// i / key_count is in tombstone_rounds and (i mod key_count) is a multiple of
// tombstone_modulo. Records are sent in order, one in flight per broker.
func produceGenerated(e *env, a args) (any, error) {
	var topic, compression string
	var count, keyCount, valueSize, modulo int
	var partition int32
	var rounds []int
	for name, out := range map[string]any{"topic": &topic, "compression": &compression, "count": &count,
		"key_count": &keyCount, "value_size": &valueSize, "tombstone_rounds": &rounds,
		"tombstone_modulo": &modulo, "partition": &partition} {
		if err := a.field(name, out); err != nil {
			return nil, err
		}
	}
	if keyCount <= 0 || count < 0 {
		return nil, fmt.Errorf("need count >= 0 and key_count > 0")
	}
	if compression == "" {
		compression = "none"
	}
	codec, ok := codecs[compression]
	if !ok {
		return nil, fmt.Errorf("bad compression %q", compression)
	}
	tombRound := map[int]bool{}
	for _, r := range rounds {
		tombRound[r] = true
	}
	cl, err := e.client(kgo.RequiredAcks(kgo.AllISRAcks()), kgo.DisableIdempotentWrite(),
		kgo.ProducerBatchCompression(codec), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.MaxBufferedRecords(count+1), kgo.ProducerLinger(5*time.Millisecond))
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	records := make([]*kgo.Record, count)
	for i := range records {
		k := i % keyCount
		r := &kgo.Record{Topic: topic, Partition: partition, Key: []byte(fmt.Sprintf("k%d", k))}
		if !(tombRound[i/keyCount] && modulo > 0 && k%modulo == 0) {
			v := fmt.Sprintf("v%d", i)
			if len(v) < valueSize {
				v += strings.Repeat("x", valueSize-len(v))
			}
			r.Value = []byte(v)
		}
		records[i] = r
	}
	errs := map[string]int{}
	for _, pr := range cl.ProduceSync(e.ctx, records...) {
		if pr.Err != nil {
			name, err := errorName(pr.Err)
			if err != nil {
				return nil, err
			}
			errs[*name]++
		}
	}
	first, last, dense := int64(-1), int64(-1), true
	for i, r := range records {
		if i == 0 {
			first = r.Offset
		}
		last = r.Offset
		if r.Offset != first+int64(i) {
			dense = false
		}
	}
	return map[string]any{"count": count, "errors": errs, "first_offset": first, "last_offset": last,
		"dense": dense}, nil
}
