package main

import (
	"errors"
	"sort"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

type groupMember struct {
	MemberID   string   `json:"member_id"`
	InstanceID *string  `json:"instance_id"`
	ClientID   string   `json:"client_id"`
	Host       string   `json:"host"`
	Assignment [][2]any `json:"assignment"`
}

type groupDesc struct {
	GroupID      string        `json:"group_id"`
	Error        *string       `json:"error"`
	State        *string       `json:"state"`
	Type         *string       `json:"type"`
	ProtocolType *string       `json:"protocol_type"`
	Protocol     *string       `json:"protocol"`
	Members      []groupMember `json:"members"`
}

// describeGroups: kadm.DescribeGroups (DescribeGroups) for classic groups. A
// group the broker answers GROUP_ID_NOT_FOUND is described again with
// kadm.DescribeConsumerGroups (ConsumerGroupDescribe): Kafka answers a
// consumer-protocol group only there. Only that answer gives the group type.
func describeGroups(e *env, a args) (any, error) {
	var names []string
	if err := a.field("groups", &names); err != nil {
		return nil, err
	}
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		described, err := adm.DescribeGroups(e.ctx, names...)
		if err != nil && len(described) == 0 {
			return nil, err
		}
		out := make([]groupDesc, 0, len(names))
		for _, n := range names {
			d := groupDesc{GroupID: n, Members: []groupMember{}}
			g, ok := described[n]
			if !ok {
				missing := "MISSING_FROM_RESPONSE"
				d.Error = &missing
				out = append(out, d)
				continue
			}
			if errors.Is(g.Err, kerr.GroupIDNotFound) {
				if cd, ok := describeConsumerGroup(e, adm, n); ok {
					out = append(out, cd)
					continue
				}
			}
			if d.Error, err = errorName(g.Err); err != nil {
				return nil, err
			}
			state, ptype, proto := g.State, g.ProtocolType, g.Protocol
			d.State, d.ProtocolType, d.Protocol = &state, &ptype, &proto
			for _, m := range g.Members {
				gm := groupMember{MemberID: m.MemberID, InstanceID: m.InstanceID, ClientID: m.ClientID,
					Host: m.ClientHost, Assignment: [][2]any{}}
				if c, ok := m.Assigned.AsConsumer(); ok {
					set := map[[2]any]bool{}
					for _, t := range c.Topics {
						for _, p := range t.Partitions {
							set[[2]any{t.Topic, p}] = true
						}
					}
					gm.Assignment = sortedPairs(set)
				}
				d.Members = append(d.Members, gm)
			}
			sort.Slice(d.Members, func(i, j int) bool { return d.Members[i].MemberID < d.Members[j].MemberID })
			out = append(out, d)
		}
		return map[string]any{"groups": out}, nil
	})
}

// describeConsumerGroup describes n as a consumer-protocol group; false when
// it is not one either.
func describeConsumerGroup(e *env, adm *kadm.Client, n string) (groupDesc, bool) {
	described, err := adm.DescribeConsumerGroups(e.ctx, n)
	g, ok := described[n]
	if err != nil || !ok || g.Err != nil {
		return groupDesc{}, false
	}
	state, typ, ptype, proto := g.State, "consumer", "consumer", g.AssignorName
	d := groupDesc{GroupID: n, State: &state, Type: &typ, ProtocolType: &ptype, Protocol: &proto, Members: []groupMember{}}
	for _, m := range g.Members {
		set := map[[2]any]bool{}
		m.Assignment.Each(func(t string, p int32) { set[[2]any{t, p}] = true })
		d.Members = append(d.Members, groupMember{MemberID: m.MemberID, InstanceID: m.InstanceID, ClientID: m.ClientID,
			Host: m.ClientHost, Assignment: sortedPairs(set)})
	}
	sort.Slice(d.Members, func(i, j int) bool { return d.Members[i].MemberID < d.Members[j].MemberID })
	return d, true
}

func listGroups(e *env, _ args) (any, error) {
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		listed, err := adm.ListGroups(e.ctx)
		if err != nil {
			return nil, err
		}
		out := []map[string]any{}
		for _, g := range listed.Sorted() {
			var typ, state any
			if g.GroupType != "" {
				typ = g.GroupType
			}
			if g.State != "" {
				state = g.State
			}
			out = append(out, map[string]any{"group_id": g.Group, "state": state, "type": typ,
				"protocol_type": g.ProtocolType})
		}
		return map[string]any{"groups": out}, nil
	})
}

// committedOffsets: kadm.FetchOffsetsForTopics, which answers -1 for every
// partition of the topic the group has no offset for.
func committedOffsets(e *env, a args) (any, error) {
	var group, topic string
	var partitions []int32
	for name, out := range map[string]any{"group": &group, "topic": &topic, "partitions": &partitions} {
		if err := a.field(name, out); err != nil {
			return nil, err
		}
	}
	return withAdmin(e, func(adm *kadm.Client) (any, error) {
		got, err := adm.FetchOffsetsForTopics(e.ctx, group, topic)
		if err != nil {
			return nil, err
		}
		if !a.has("partitions") {
			for p := range got[topic] {
				partitions = append(partitions, p)
			}
		}
		offsets := map[string]int64{}
		for _, p := range partitions {
			o, ok := got.Lookup(topic, p)
			switch {
			case ok && o.Err != nil:
				return nil, o.Err
			case !ok || o.At < 0:
				offsets[strconv.Itoa(int(p))] = -1
			default:
				offsets[strconv.Itoa(int(p))] = o.At
			}
		}
		return map[string]any{"offsets": offsets}, nil
	})
}
