package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// configOpts maps DRIVERS.md "config" entries (Java client property names)
// to kgo options. franz-go has no property-based configuration, so only the
// properties below are understood; any other key makes the command answer
// {"unsupported": ...} rather than silently running without it.
func configOpts(config map[string]any) ([]kgo.Opt, string, error) {
	var opts []kgo.Opt
	for key, raw := range config {
		value := fmt.Sprint(raw)
		ms := func() (time.Duration, bool) {
			n, err := strconv.ParseInt(value, 10, 64)
			return time.Duration(n) * time.Millisecond, err == nil
		}
		num := func() (int, bool) {
			n, err := strconv.Atoi(value)
			return n, err == nil
		}
		ok := true
		switch key {
		case "client.id":
			opts = append(opts, kgo.ClientID(value))
		case "allow.auto.create.topics":
			if value == "true" {
				opts = append(opts, kgo.AllowAutoTopicCreation())
			}
		case "request.timeout.ms":
			var d time.Duration
			if d, ok = ms(); ok {
				opts = append(opts, kgo.ProduceRequestTimeout(d))
			}
		case "linger.ms":
			var d time.Duration
			if d, ok = ms(); ok {
				opts = append(opts, kgo.ProducerLinger(d))
			}
		case "delivery.timeout.ms":
			var d time.Duration
			if d, ok = ms(); ok {
				opts = append(opts, kgo.RecordDeliveryTimeout(d))
			}
		case "retries":
			var n int
			if n, ok = num(); ok {
				opts = append(opts, kgo.RecordRetries(n))
			}
		case "fetch.max.wait.ms":
			var d time.Duration
			if d, ok = ms(); ok {
				opts = append(opts, kgo.FetchMaxWait(d))
			}
		case "fetch.max.bytes":
			var n int
			if n, ok = num(); ok {
				opts = append(opts, kgo.FetchMaxBytes(int32(n)))
			}
		case "max.partition.fetch.bytes":
			var n int
			if n, ok = num(); ok {
				opts = append(opts, kgo.FetchMaxPartitionBytes(int32(n)))
			}
		default:
			return nil, fmt.Sprintf("franz-go driver does not map config key %q", key), nil
		}
		if !ok {
			return nil, "", fmt.Errorf("bad value %q for config key %q", value, key)
		}
	}
	return opts, "", nil
}
