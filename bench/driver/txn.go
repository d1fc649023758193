package main

import (
	"context"
	"crypto/rand"
	"flag"
	"os"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// runTxn (txn): one transactional producer commits transactions of RECORDS-PER-TXN records
// (RECORD-SIZE bytes, the transaction's partition rotating over PARTITIONS) back to back for
// SECONDS, and reports committed transactions per second. -version 1 caps EndTxn at v4 so that
// franz-go runs transaction version 1 (AddPartitionsToTxn before the first produce to a
// partition, the epoch kept); -version 2 lets it negotiate KIP-890's version 2 where the broker
// finalizes transaction.version 2 (the produce adds the partition, EndTxn v5 bumps the epoch).
// The AddPartitionsToTxn requests sent are counted to show which one ran.
func runTxn(bootstrap, topic string, argv []string) {
	fl := flag.NewFlagSet("txn", flag.ExitOnError)
	seconds := fl.Float64("seconds", 5, "how long to commit transactions")
	perTxn := fl.Int("records-per-txn", 10, "records in each transaction")
	size := fl.Int("record-size", 100, "value bytes per record")
	partitions := fl.Int("partitions", 1, "partitions of TOPIC to rotate over")
	version := fl.Int("version", 2, "transaction version: 1 (EndTxn <= v4) or 2")
	id := fl.String("transactional-id", "bench-txn", "transactional id")
	_ = fl.Parse(argv)
	var adds atomic.Int64
	opts := []kgo.Opt{kgo.SeedBrokers(bootstrap), kgo.DefaultProduceTopic(topic), kgo.TransactionalID(*id),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0),
		kgo.WithHooks(addsHook{&adds})}
	if os.Getenv("BENCH_DRIVER_DEBUG") != "" {
		opts = append(opts, kgo.WithLogger(kgo.BasicLogger(os.Stderr, kgo.LogLevelDebug, nil)))
	}
	if *version == 1 {
		v := kversion.Stable()
		v.SetMaxKeyVersion(int16(kmsg.EndTxn), 4)
		opts = append(opts, kgo.MaxVersions(v))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		die("client: %v", err)
	}
	defer cl.Close()
	value := make([]byte, *size)
	rand.Read(value)
	ctx := context.Background()
	txn := func(i int) {
		if err := cl.BeginTransaction(); err != nil {
			die("begin: %v", err)
		}
		p := int32(i % *partitions)
		for j := 0; j < *perTxn; j++ {
			cl.Produce(ctx, &kgo.Record{Partition: p, Value: value}, nil)
		}
		if err := cl.Flush(ctx); err != nil {
			die("flush: %v", err)
		}
		if err := cl.EndTransaction(ctx, kgo.TryCommit); err != nil {
			die("commit: %v", err)
		}
	}
	txn(0) // the producer id and the coordinator: not measured
	adds.Store(0)
	deadline := time.Now().Add(time.Duration(*seconds * float64(time.Second)))
	start := time.Now()
	n := 0
	for time.Now().Before(deadline) {
		n++
		txn(n)
	}
	secs := time.Since(start).Seconds()
	emit(map[string]any{"transactions": n, "seconds": secs, "txn_s": float64(n) / secs, "version": *version,
		"records_s": float64(n**perTxn) / secs, "add_partitions_requests": adds.Load()})
}

// addsHook counts AddPartitionsToTxn requests written.
type addsHook struct{ n *atomic.Int64 }

func (h addsHook) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, _ error) {
	if key == int16(kmsg.AddPartitionsToTxn) {
		h.n.Add(1)
	}
}
