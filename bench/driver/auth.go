package main

import (
	"os"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// auth: the SASL/PLAIN login of every client this process makes, from BENCH_SASL_PLAIN=user:password
// (bench/tenancy_bench.py: a tenant's user); unset, none (PLAINTEXT, as every other benchmark).
func auth() []kgo.Opt {
	v := os.Getenv("BENCH_SASL_PLAIN")
	if v == "" {
		return nil
	}
	user, pass, ok := strings.Cut(v, ":")
	if !ok {
		die("BENCH_SASL_PLAIN must be user:password")
	}
	return []kgo.Opt{kgo.SASL(plain.Auth{User: user, Pass: pass}.AsMechanism())}
}

// seeds: the seed brokers (BOOTSTRAP may list several, comma-separated, as Kafka's clients take it) and the
// login (auth), the options every client starts with.
func seeds(bootstrap string) []kgo.Opt {
	return append([]kgo.Opt{kgo.SeedBrokers(strings.Split(bootstrap, ",")...)}, auth()...)
}
