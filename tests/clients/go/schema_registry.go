package main

// sr-roundtrip: franz-go's schema registry client (pkg/sr) and its serde
// against ketch's registry: register a JSON Schema for <topic>-value, encode
// records with the Confluent framing (sr.Serde), produce them, consume them
// back and decode them through the id the frames carry.
//
// args: {"registry": "http://host:port", "topic": "t", "schema": "<json schema>", "records": [{...}]}
// out:  {"id": N, "version": V, "records": [{...}], "schema_type": "JSON", "subjects": [...]}

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
)

func srRoundtrip(e *env, a args) (any, error) {
	var url, topic, schema string
	var records []map[string]any
	for name, out := range map[string]any{"registry": &url, "topic": &topic, "schema": &schema, "records": &records} {
		if err := a.field(name, out); err != nil {
			return nil, err
		}
	}
	rc, err := sr.NewClient(sr.URLs(url))
	if err != nil {
		return nil, err
	}
	subject := topic + "-value"
	ss, err := rc.CreateSchema(e.ctx, subject, sr.Schema{Schema: schema, Type: sr.TypeJSON})
	if err != nil {
		return nil, fmt.Errorf("register: %w", err)
	}
	var serde sr.Serde
	serde.Register(ss.ID, map[string]any{},
		sr.EncodeFn(func(v any) ([]byte, error) { return json.Marshal(v) }),
		sr.DecodeFn(func(b []byte, v any) error { return json.Unmarshal(b, v) }))
	cl, err := e.client(kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.AllowAutoTopicCreation())
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	for _, r := range records {
		b, err := serde.Encode(r)
		if err != nil {
			return nil, err
		}
		if err := cl.ProduceSync(e.ctx, &kgo.Record{Topic: topic, Value: b}).FirstErr(); err != nil {
			return nil, err
		}
	}
	got := []map[string]any{}
	deadline := time.Now().Add(30 * time.Second)
	for len(got) < len(records) && time.Now().Before(deadline) {
		fs := cl.PollRecords(e.ctx, 100)
		for _, r := range fs.Records() {
			// The id in the frame is looked up in the registry, as a consumer without the serde would.
			var hdr sr.ConfluentHeader
			id, _, err := hdr.DecodeID(r.Value)
			if err != nil {
				return nil, err
			}
			if _, err := rc.SchemaByID(e.ctx, id); err != nil {
				return nil, fmt.Errorf("schema %d: %w", id, err)
			}
			v := map[string]any{}
			if err := serde.Decode(r.Value, &v); err != nil {
				return nil, err
			}
			got = append(got, v)
		}
	}
	subjects, err := rc.Subjects(e.ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": ss.ID, "version": ss.Version, "records": got, "schema_type": ss.Type.String(),
		"subjects": subjects}, nil
}
