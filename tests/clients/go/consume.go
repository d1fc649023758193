package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

type recordOut struct {
	Partition     int32        `json:"partition"`
	Offset        int64        `json:"offset"`
	Key           *string      `json:"key"`
	Value         *string      `json:"value"`
	Headers       [][2]*string `json:"headers"`
	Timestamp     int64        `json:"timestamp"`
	TimestampType string       `json:"timestamp_type"`
}

func toB64(b []byte) *string {
	if b == nil {
		return nil
	}
	s := base64.StdEncoding.EncodeToString(b)
	return &s
}

// startOffset maps consume's "from" to a kgo.Offset. {"timestamp": ms} uses
// AfterMilli, which starts at the end of a partition that has no record at
// or after ms. Offsets are built on NoResetOffset: an out-of-range start
// offset surfaces OFFSET_OUT_OF_RANGE instead of kgo silently restarting from
// the beginning (Java's auto.offset.reset=none).
func startOffset(a args) (kgo.Offset, error) {
	raw, ok := a["from"]
	if !ok || string(raw) == "null" {
		return kgo.NoResetOffset().AtStart(), nil
	}
	var word string
	if json.Unmarshal(raw, &word) == nil {
		switch word {
		case "beginning":
			return kgo.NoResetOffset().AtStart(), nil
		case "end":
			return kgo.NoResetOffset().AtEnd(), nil
		}
		return kgo.Offset{}, fmt.Errorf("bad from %q", word)
	}
	var obj struct {
		Offset    *int64 `json:"offset"`
		Timestamp *int64 `json:"timestamp"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return kgo.Offset{}, fmt.Errorf("bad from %s: %w", raw, err)
	}
	switch {
	case obj.Offset != nil:
		return kgo.NoResetOffset().At(*obj.Offset), nil
	case obj.Timestamp != nil:
		return kgo.NoResetOffset().AfterMilli(*obj.Timestamp), nil
	}
	return kgo.Offset{}, fmt.Errorf("bad from %s", raw)
}

// consume reads without a consumer group: kgo.ConsumePartitions when
// partitions are listed (assign), otherwise kgo.ConsumeTopics, which without
// a group consumes every partition directly from ConsumeResetOffset.
func consume(e *env, a args) (any, error) {
	var topic, isolation string
	var partitions []int32
	maxRecords, timeoutMs := 1<<31-1, int64(10000)
	for name, out := range map[string]any{"topic": &topic, "partitions": &partitions, "isolation_level": &isolation, "max_records": &maxRecords, "timeout_ms": &timeoutMs} {
		if err := a.field(name, out); err != nil {
			return nil, err
		}
	}
	offset, err := startOffset(a)
	if err != nil {
		return nil, err
	}
	opts := []kgo.Opt{kgo.FetchMaxWait(500 * time.Millisecond)}
	switch isolation {
	case "", "read_uncommitted":
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
	case "read_committed":
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	default:
		return nil, fmt.Errorf("bad isolation_level %q", isolation)
	}
	if a.has("partitions") {
		assign := map[int32]kgo.Offset{}
		for _, p := range partitions {
			assign[p] = offset
		}
		opts = append(opts, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: assign}),
			kgo.ConsumeResetOffset(kgo.NoResetOffset()))
	} else {
		opts = append(opts, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(offset))
	}
	cl, err := e.client(opts...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()

	ctx, cancel := context.WithTimeout(e.ctx, time.Duration(timeoutMs)*time.Millisecond)
	defer cancel()
	records := []recordOut{}
	result := map[string]any{}
	for len(records) < maxRecords && ctx.Err() == nil {
		fetches := cl.PollRecords(ctx, maxRecords-len(records))
		for _, fe := range fetches.Errors() {
			if errors.Is(fe.Err, context.DeadlineExceeded) || errors.Is(fe.Err, context.Canceled) {
				continue
			}
			name, err := errorName(fe.Err)
			if err != nil {
				return nil, err
			}
			result["error"] = *name
		}
		fetches.EachRecord(func(r *kgo.Record) {
			out := recordOut{
				Partition:     r.Partition,
				Offset:        r.Offset,
				Key:           toB64(r.Key),
				Value:         toB64(r.Value),
				Headers:       [][2]*string{},
				Timestamp:     r.Timestamp.UnixMilli(),
				TimestampType: "CreateTime",
			}
			if r.Attrs.TimestampType() == 1 {
				out.TimestampType = "LogAppendTime"
			}
			for _, h := range r.Headers {
				k := h.Key
				out.Headers = append(out.Headers, [2]*string{&k, toB64(h.Value)})
			}
			records = append(records, out)
		})
		if result["error"] != nil {
			break
		}
	}
	if len(records) > maxRecords {
		records = records[:maxRecords]
	}
	result["records"] = records
	return result, nil
}
