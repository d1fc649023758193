package main

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
)

type offsetAt struct {
	Offset    int64 `json:"offset"`
	Timestamp int64 `json:"timestamp"`
}

// collect turns kadm's listing for topic into the DRIVERS.md offsets map for
// the wanted partitions (nil: all listed). A topic-level failure (kadm's
// special partition -1) becomes "error"; partition failures go to "errors".
func collect(listed kadm.ListedOffsets, topic string, wanted []int32, value func(kadm.ListedOffset) any) (map[string]any, error) {
	offsets := map[string]any{}
	errs := map[string]string{}
	result := map[string]any{"offsets": offsets}
	byPartition := listed[topic]
	if lo, ok := byPartition[-1]; ok && lo.Err != nil {
		name, err := errorName(lo.Err)
		if err != nil {
			return nil, err
		}
		result["error"] = *name
		return result, nil
	}
	if wanted == nil {
		for p := range byPartition {
			wanted = append(wanted, p)
		}
		sort.Slice(wanted, func(i, j int) bool { return wanted[i] < wanted[j] })
	}
	for _, p := range wanted {
		key := strconv.Itoa(int(p))
		lo, ok := byPartition[p]
		if !ok {
			offsets[key] = nil
			continue
		}
		if lo.Err != nil {
			name, err := errorName(lo.Err)
			if err != nil {
				return nil, err
			}
			errs[key] = *name
			offsets[key] = nil
			continue
		}
		offsets[key] = value(lo)
	}
	if len(errs) > 0 {
		result["errors"] = errs
	}
	return result, nil
}

// offsetsForTimes: kadm.ListOffsetsAfterMilli takes one timestamp for all
// partitions, so there is one call per distinct timestamp. Where Kafka finds
// no record at or after the timestamp, kadm re-lists the end offset with
// timestamp -1; that answer is reported as null, as Java's offsetsForTimes
// does.
func offsetsForTimes(e *env, a args) (any, error) {
	var topic string
	var timestamps map[string]int64
	if err := a.field("topic", &topic); err != nil {
		return nil, err
	}
	if err := a.field("timestamps", &timestamps); err != nil {
		return nil, err
	}
	byTime := map[int64][]int32{}
	for key, ts := range timestamps {
		p, err := strconv.Atoi(key)
		if err != nil {
			return nil, fmt.Errorf("bad partition %q", key)
		}
		byTime[ts] = append(byTime[ts], int32(p))
	}
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		merged := map[string]any{"offsets": map[string]any{}}
		for ts, partitions := range byTime {
			listed, err := adm.ListOffsetsAfterMilli(e.ctx, ts, topic)
			if err != nil && len(listed) == 0 {
				return nil, err
			}
			part, err := collect(listed, topic, partitions, func(lo kadm.ListedOffset) any {
				if lo.Timestamp < 0 {
					return nil
				}
				return offsetAt{lo.Offset, lo.Timestamp}
			})
			if err != nil {
				return nil, err
			}
			mergeResult(merged, part)
		}
		return merged, nil
	})
}

func mergeResult(into, part map[string]any) {
	for k, v := range part["offsets"].(map[string]any) {
		into["offsets"].(map[string]any)[k] = v
	}
	if errs, ok := part["errors"].(map[string]string); ok {
		all, _ := into["errors"].(map[string]string)
		if all == nil {
			all = map[string]string{}
			into["errors"] = all
		}
		for k, v := range errs {
			all[k] = v
		}
	}
	if msg, ok := part["error"]; ok {
		into["error"] = msg
	}
}

// listOffsets: earliest = ListStartOffsets, latest = ListEndOffsets (or
// ListCommittedOffsets, kadm's read_committed end offsets, when asked for
// read_committed), max_timestamp = ListMaxTimestampOffsets.
func listOffsets(e *env, a args) (any, error) {
	var topic, spec, isolation string
	var partitions []int32
	for name, out := range map[string]any{"topic": &topic, "spec": &spec, "partitions": &partitions, "isolation_level": &isolation} {
		if err := a.field(name, out); err != nil {
			return nil, err
		}
	}
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		var list func(*kadm.Client) (kadm.ListedOffsets, error)
		switch spec {
		case "earliest":
			list = func(c *kadm.Client) (kadm.ListedOffsets, error) { return c.ListStartOffsets(e.ctx, topic) }
		case "latest", "":
			list = func(c *kadm.Client) (kadm.ListedOffsets, error) { return c.ListEndOffsets(e.ctx, topic) }
			if isolation == "read_committed" {
				list = func(c *kadm.Client) (kadm.ListedOffsets, error) { return c.ListCommittedOffsets(e.ctx, topic) }
			}
		case "max_timestamp":
			list = func(c *kadm.Client) (kadm.ListedOffsets, error) { return c.ListMaxTimestampOffsets(e.ctx, topic) }
		default:
			return nil, fmt.Errorf("bad spec %q", spec)
		}
		listed, err := list(adm)
		if err != nil && len(listed) == 0 {
			return nil, err
		}
		var wanted []int32
		if a.has("partitions") {
			wanted = partitions
		}
		return collect(listed, topic, wanted, func(lo kadm.ListedOffset) any { return lo.Offset })
	})
}
