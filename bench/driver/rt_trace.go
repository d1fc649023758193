package main

import (
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// rtTrace (produce --trace, consume --trace) records, from the client's side, each round trip
// of one API key (0 Produce, 1 Fetch) of each client: bytes per request and per answer,
// batches and records per request (Produce: written; Fetch: read), how long the request took
// to write (conn.Write: a broker that reads slowly shows here), how long from the last byte
// written to the answer read whole (the broker's service time plus the wake-ups on both
// sides), and the gap between an answer read and the next request written (the client's own
// turn-around: franz-go keeps one Produce request in flight per broker by default, and one
// Fetch per broker: the next is sent once the last answer was decoded and taken by a poll).
type rtTrace struct {
	key      int16
	mu       sync.Mutex
	reqBytes []float64
	ansBytes []float64
	write    []float64 // ms
	answer   []float64 // ms: last byte written -> answer read whole
	gap      []float64 // ms: previous answer read -> this request's write started
	lastRead map[*kgo.Client]time.Time
	batches  int
	records  int
}

func newTrace(key int16) *rtTrace { return &rtTrace{key: key, lastRead: map[*kgo.Client]time.Time{}} }

type traceHooks struct {
	t  *rtTrace
	cl **kgo.Client
}

func (h traceHooks) OnBrokerE2E(_ kgo.BrokerMetadata, key int16, e kgo.BrokerE2E) {
	if key != h.t.key || e.Err() != nil {
		return
	}
	end := time.Now()
	start := end.Add(-e.DurationE2E())
	t := h.t
	t.mu.Lock()
	defer t.mu.Unlock()
	t.reqBytes = append(t.reqBytes, float64(e.BytesWritten))
	t.ansBytes = append(t.ansBytes, float64(e.BytesRead))
	t.write = append(t.write, ms(e.TimeToWrite))
	t.answer = append(t.answer, ms(e.ReadWait+e.TimeToRead))
	if prev, ok := t.lastRead[*h.cl]; ok && start.After(prev) {
		t.gap = append(t.gap, ms(start.Sub(prev)))
	}
	t.lastRead[*h.cl] = end
}

func (h traceHooks) OnProduceBatchWritten(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.ProduceBatchMetrics) {
	h.t.batch(m.NumRecords)
}

func (h traceHooks) OnFetchBatchRead(_ kgo.BrokerMetadata, _ string, _ int32, m kgo.FetchBatchMetrics) {
	h.t.batch(m.NumRecords)
}

func (t *rtTrace) batch(records int) {
	t.mu.Lock()
	t.batches++
	t.records += records
	t.mu.Unlock()
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// hooks gives one client's hooks; *cl is set once the client exists.
func (t *rtTrace) hooks(cl **kgo.Client) kgo.Opt {
	return kgo.WithHooks(traceHooks{t: t, cl: cl})
}

func quantiles(v []float64) map[string]float64 {
	if len(v) == 0 {
		return nil
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	q := func(p float64) float64 { return s[int(p*float64(len(s)-1))] }
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return map[string]float64{"mean": sum / float64(len(s)), "p50": q(0.5), "p90": q(0.9), "p99": q(0.99)}
}

func (t *rtTrace) report() map[string]any {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.reqBytes)
	out := map[string]any{"requests": n, "request_bytes": quantiles(t.reqBytes),
		"answer_bytes": quantiles(t.ansBytes), "write_ms": quantiles(t.write),
		"answer_ms": quantiles(t.answer), "gap_ms": quantiles(t.gap)}
	if n > 0 {
		out["batches_per_request"] = float64(t.batches) / float64(n)
		out["records_per_request"] = float64(t.records) / float64(n)
	}
	return out
}
