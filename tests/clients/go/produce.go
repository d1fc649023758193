package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

type recordIn struct {
	Key       *string     `json:"key"`
	Value     *string     `json:"value"`
	Headers   [][]*string `json:"headers"`
	Timestamp *int64      `json:"timestamp"`
	Partition *int32      `json:"partition"`
}

type produceResult struct {
	Partition int32   `json:"partition"`
	Offset    int64   `json:"offset"`
	Timestamp int64   `json:"timestamp"`
	Error     *string `json:"error"`
}

// b64 decodes a DRIVERS.md byte string; JSON null stays nil (Kafka null).
func b64(s *string) ([]byte, error) {
	if s == nil {
		return nil, nil
	}
	b, err := base64.StdEncoding.DecodeString(*s)
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

func acksOf(a args) (kgo.Acks, error) {
	raw, ok := a["acks"]
	if !ok || string(raw) == "null" {
		return kgo.AllISRAcks(), nil
	}
	switch strings.Trim(string(raw), `"`) {
	case "all", "-1":
		return kgo.AllISRAcks(), nil
	case "1":
		return kgo.LeaderAck(), nil
	case "0":
		return kgo.NoAck(), nil
	}
	return kgo.Acks{}, fmt.Errorf("bad acks %s", raw)
}

var codecs = map[string]kgo.CompressionCodec{
	"none":   kgo.NoCompression(),
	"gzip":   kgo.GzipCompression(),
	"snappy": kgo.SnappyCompression(),
	"lz4":    kgo.Lz4Compression(),
	"zstd":   kgo.ZstdCompression(),
}

// explicitKey marks, in Record.Context, a record whose input named a
// partition.
type explicitKey struct{}

func isExplicit(r *kgo.Record) bool {
	return r.Context != nil && r.Context.Value(explicitKey{}) != nil
}

// mixedPartitioner sends records with an explicit partition there and leaves
// every other record to franz-go's default partitioner (used only when the
// input mixes both kinds; otherwise the default or ManualPartitioner is used
// unwrapped).
type mixedPartitioner struct{ inner kgo.Partitioner }

func (m mixedPartitioner) ForTopic(t string) kgo.TopicPartitioner {
	return mixedTopicPartitioner{m.inner.ForTopic(t)}
}

type mixedTopicPartitioner struct{ inner kgo.TopicPartitioner }

func (m mixedTopicPartitioner) RequiresConsistency(r *kgo.Record) bool {
	return isExplicit(r) || m.inner.RequiresConsistency(r)
}

func (m mixedTopicPartitioner) Partition(r *kgo.Record, n int) int {
	if isExplicit(r) {
		return int(r.Partition)
	}
	return m.inner.Partition(r, n)
}

func (m mixedTopicPartitioner) OnNewBatch() {
	if o, ok := m.inner.(kgo.TopicPartitionerOnNewBatch); ok {
		o.OnNewBatch()
	}
}

func (m mixedTopicPartitioner) PartitionByBackup(r *kgo.Record, n int, it kgo.TopicBackupIter) int {
	if isExplicit(r) {
		return int(r.Partition)
	}
	if b, ok := m.inner.(kgo.TopicBackupPartitioner); ok {
		return b.PartitionByBackup(r, n, it)
	}
	return m.inner.Partition(r, n)
}

// The default franz-go partitioner, as documented for kgo.RecordPartitioner.
func defaultPartitioner() kgo.Partitioner {
	return kgo.UniformBytesPartitioner(64<<10, true, true, nil)
}

func produce(e *env, a args) (any, error) {
	var topic, compression string
	var idempotent bool
	var input []recordIn
	for name, out := range map[string]any{"topic": &topic, "compression": &compression, "idempotent": &idempotent, "records": &input} {
		if err := a.field(name, out); err != nil {
			return nil, err
		}
	}
	acks, err := acksOf(a)
	if err != nil {
		return nil, err
	}
	if compression == "" {
		compression = "none"
	}
	codec, ok := codecs[compression]
	if !ok {
		return nil, fmt.Errorf("bad compression %q", compression)
	}

	records := make([]*kgo.Record, len(input))
	explicit, implicit := 0, 0
	for i, in := range input {
		r := &kgo.Record{Topic: topic}
		if r.Key, err = b64(in.Key); err != nil {
			return nil, err
		}
		if r.Value, err = b64(in.Value); err != nil {
			return nil, err
		}
		for _, h := range in.Headers {
			if len(h) != 2 || h[0] == nil {
				return nil, fmt.Errorf("bad header %v", h)
			}
			v, err := b64(h[1])
			if err != nil {
				return nil, err
			}
			r.Headers = append(r.Headers, kgo.RecordHeader{Key: *h[0], Value: v})
		}
		if in.Timestamp != nil {
			r.Timestamp = time.UnixMilli(*in.Timestamp)
		}
		if in.Partition != nil {
			r.Partition = *in.Partition
			r.Context = context.WithValue(context.Background(), explicitKey{}, true)
			explicit++
		} else {
			implicit++
		}
		records[i] = r
	}

	opts := []kgo.Opt{kgo.RequiredAcks(acks), kgo.ProducerBatchCompression(codec)}
	if !idempotent {
		opts = append(opts, kgo.DisableIdempotentWrite())
	}
	switch {
	case explicit > 0 && implicit == 0:
		opts = append(opts, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	case explicit > 0:
		opts = append(opts, kgo.RecordPartitioner(mixedPartitioner{defaultPartitioner()}))
	}
	cl, err := e.client(opts...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()

	results := map[*kgo.Record]error{}
	for _, pr := range cl.ProduceSync(e.ctx, records...) {
		results[pr.Record] = pr.Err
	}
	out := make([]produceResult, len(records))
	for i, r := range records {
		res := produceResult{Partition: r.Partition, Offset: r.Offset, Timestamp: -1}
		if !r.Timestamp.IsZero() {
			res.Timestamp = r.Timestamp.UnixMilli()
		}
		perr := results[r]
		if perr != nil && strings.HasPrefix(perr.Error(), "invalid record partitioning choice") {
			// kgo refuses, without a request, a partition beyond the
			// topic's partition count in its metadata.
			unknown := "UNKNOWN_TOPIC_OR_PARTITION"
			res.Error = &unknown
		} else if res.Error, err = errorName(perr); err != nil {
			return nil, err
		}
		if res.Error != nil && input[i].Partition == nil {
			res.Partition = -1 // failed records report only an explicit partition
		}
		// kgo fills offsets in only when acks are required (ProduceResult
		// docs); with acks=0 the record's zero Offset is not an answer.
		if res.Error != nil || acks == kgo.NoAck() {
			res.Offset = -1
		}
		out[i] = res
	}
	return map[string]any{"records": out}, nil
}
