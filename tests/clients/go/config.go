package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// security collects the librdkafka-named security settings (DRIVERS.md
// "Security settings"; the kafkajs driver takes the same names).
type security struct {
	protocol, mechanism, username, password string
	caFile, certFile, keyFile               string
	// SCRAM login by delegation token (the client-first extension
	// tokenauth=true): "sasl.scram.tokenauth": "true", a name of our own.
	tokenAuth bool
}

// opts turns the settings into kgo options: TLS for SSL / SASL_SSL (the CA
// file as the only root, an optional client certificate), SASL PLAIN or
// SCRAM-SHA-256/512 for SASL_PLAINTEXT / SASL_SSL.
func (s security) opts() ([]kgo.Opt, string, error) {
	var opts []kgo.Opt
	useTLS, useSASL := false, false
	switch s.protocol {
	case "", "PLAINTEXT":
	case "SSL":
		useTLS = true
	case "SASL_PLAINTEXT":
		useSASL = true
	case "SASL_SSL":
		useTLS, useSASL = true, true
	default:
		return nil, fmt.Sprintf("franz-go driver does not know security.protocol %q", s.protocol), nil
	}
	if useTLS {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if s.caFile != "" {
			pem, err := os.ReadFile(s.caFile)
			if err != nil {
				return nil, "", err
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, "", fmt.Errorf("no certificate in %s", s.caFile)
			}
			cfg.RootCAs = pool
		}
		if s.certFile != "" || s.keyFile != "" {
			pair, err := tls.LoadX509KeyPair(s.certFile, s.keyFile)
			if err != nil {
				return nil, "", err
			}
			cfg.Certificates = []tls.Certificate{pair}
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	if useSASL {
		var m sasl.Mechanism
		switch s.mechanism {
		case "PLAIN":
			m = plain.Auth{User: s.username, Pass: s.password}.AsMechanism()
		case "SCRAM-SHA-256":
			m = scram.Auth{User: s.username, Pass: s.password, IsToken: s.tokenAuth}.AsSha256Mechanism()
		case "SCRAM-SHA-512":
			m = scram.Auth{User: s.username, Pass: s.password, IsToken: s.tokenAuth}.AsSha512Mechanism()
		default:
			return nil, fmt.Sprintf("franz-go driver does not know sasl.mechanism %q", s.mechanism), nil
		}
		opts = append(opts, kgo.SASL(m))
	}
	return opts, "", nil
}

// configOpts maps DRIVERS.md "config" entries (Java client property names)
// to kgo options. franz-go has no property-based configuration, so only the
// properties below are understood; any other key makes the command answer
// {"unsupported": ...} rather than silently running without it. Security
// settings take librdkafka's names (security.protocol, sasl.mechanism,
// sasl.username, sasl.password, ssl.ca.location, ssl.certificate.location,
// ssl.key.location).
func configOpts(config map[string]any) ([]kgo.Opt, string, error) {
	var opts []kgo.Opt
	var sec security
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
		case "security.protocol":
			sec.protocol = value
		case "sasl.mechanism", "sasl.mechanisms":
			sec.mechanism = value
		case "sasl.username":
			sec.username = value
		case "sasl.password":
			sec.password = value
		case "sasl.scram.tokenauth":
			sec.tokenAuth = value == "true"
		case "ssl.ca.location":
			sec.caFile = value
		case "ssl.certificate.location":
			sec.certFile = value
		case "ssl.key.location":
			sec.keyFile = value
		default:
			return nil, fmt.Sprintf("franz-go driver does not map config key %q", key), nil
		}
		if !ok {
			return nil, "", fmt.Errorf("bad value %q for config key %q", value, key)
		}
	}
	secOpts, unsupported, err := sec.opts()
	if unsupported != "" || err != nil {
		return nil, unsupported, err
	}
	return append(opts, secOpts...), "", nil
}
