package main

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kerrRenamed lists codes whose kerr name differs from the constant in
// Kafka's Errors enum (clients/.../common/protocol/Errors.java, Kafka 4.3).
var kerrRenamed = map[int16]string{
	6: "NOT_LEADER_OR_FOLLOWER", // kerr: NOT_LEADER_FOR_PARTITION
}

// kafkaName returns the Kafka error name carried by err, or "" when err is
// not a Kafka error. Client-side timeouts and connection failures are named
// as the Kafka error a Java client reports for them.
func kafkaName(err error) string {
	var ke *kerr.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ke):
		if n, ok := kerrRenamed[ke.Code]; ok {
			return n
		}
		return ke.Message
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, kgo.ErrRecordTimeout):
		return "REQUEST_TIMED_OUT"
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return "NETWORK_EXCEPTION"
	}
	return ""
}

// errorName is the JSON "error" value for err: null for success, the Kafka
// error name otherwise. An error without Kafka meaning (a bug, a bad
// argument, franz-go refusing the request client-side) is returned as a
// driver failure rather than dressed up as a Kafka error.
func errorName(err error) (*string, error) {
	if err == nil {
		return nil, nil
	}
	if n := kafkaName(err); n != "" {
		return &n, nil
	}
	return nil, err
}

// errMissing reports a response that leaves out a requested topic.
func errMissing(topic string) error {
	return fmt.Errorf("topic %q missing from the response", topic)
}
