// StickyTaskAssignor and ProcessState (Apache Kafka 4.3.1,
// group-coordinator streams/assignor), without threads or priority queues:
// the least loaded process is found by a scan, ties going to the first in
// process-id order (Kafka's PriorityQueue order among equal loads is its
// heap's, not specified).
#include "group/streams_assignor.h"

#include <algorithm>
#include <list>
#include <optional>
#include <set>
#include <vector>

namespace ketch::group {

namespace {

using task = std::pair<std::string, int32_t>;  // (subtopology, partition)

struct process_state {
    int capacity = 0;
    int task_count = 0;
    std::map<std::string, int> member_counts;
    std::map<std::string, std::set<task>> active, standby;  // by member
    std::set<task> tasks;
    double load() const { return capacity == 0 ? 1e300 : double(task_count) / capacity; }
    int add(const std::string& member, const task& t, bool is_active) {
        ++task_count;
        tasks.insert(t);
        (is_active ? active : standby)[member].insert(t);
        return ++member_counts[member];
    }
    int add_to_least_loaded(const task& t, bool is_active) {
        if (member_counts.empty()) return -1;
        auto best = member_counts.begin();
        for (auto it = member_counts.begin(); it != member_counts.end(); ++it)
            if (it->second < best->second) best = it;
        return add(best->first, t, is_active);
    }
};

struct member_ref {
    std::string process_id;
    std::string member_id;
};

int per_member(int tasks, int members) { return members == 0 ? 0 : (tasks + members - 1) / members; }

class sticky {
public:
    sticky(const std::map<std::string, streams_assignor_member>& members,
           const std::map<std::string, streams_assignor_subtopology>& topology, int32_t standbys)
        : standbys_(standbys) {
        for (const auto& [sub, s] : topology) {
            total_tasks_ += s.number_of_tasks;
            total_active_ += s.number_of_tasks;
            if (s.stateful) total_tasks_ += s.number_of_tasks * standbys_;
        }
        active_capacity_ = task_capacity_ = int(members.size());
        active_per_member_ = per_member(total_active_, active_capacity_);
        tasks_per_member_ = per_member(total_tasks_, task_capacity_);
        for (const auto& [id, m] : members) {
            auto& p = processes_[m.process_id];
            ++p.capacity;
            p.member_counts[id] = 0;
            for (const auto& [sub, ps] : m.current.active)
                for (auto p2 : ps) prev_active_[{sub, p2}] = {m.process_id, id};
            for (const auto& [sub, ps] : m.current.standby)
                for (auto p2 : ps) prev_standby_[{sub, p2}].push_back({m.process_id, id});
        }
    }

    void assign_active(std::vector<task> tasks) {
        std::sort(tasks.begin(), tasks.end(), [](const task& a, const task& b) {
            return a.second != b.second ? a.second < b.second : a.first < b.first;
        });
        std::list<task> rest(tasks.begin(), tasks.end());
        // 1. to the member that had the task active; 2. to a previous standby
        for (int pass = 0; pass < 2; ++pass)
            for (auto it = rest.begin(); it != rest.end();) {
                std::optional<member_ref> prev;
                if (pass == 0) {
                    if (auto p = prev_active_.find(*it); p != prev_active_.end()) prev = p->second;
                } else if (auto p = prev_standby_.find(*it); p != prev_standby_.end()) {
                    prev = least_loaded_prev(p->second, nullptr);
                }
                if (prev && processes_[prev->process_id].member_counts[prev->member_id] < active_per_member_) {
                    added_active(processes_[prev->process_id].add(prev->member_id, *it, true));
                    it = rest.erase(it);
                } else {
                    ++it;
                }
            }
        rest.sort([](const task& a, const task& b) { return a < b; });
        for (const auto& t : rest) {
            auto* p = least_loaded_process(nullptr);
            if (!p) break;
            int n = p->add_to_least_loaded(t, true);
            if (n != -1) added_active(n);
        }
    }

    void assign_standby(std::vector<task> tasks) {
        std::sort(tasks.begin(), tasks.end(), [](const task& a, const task& b) {
            return a.second != b.second ? a.second > b.second : a.first > b.first;
        });
        std::vector<std::pair<task, int>> to_least_loaded;
        for (const auto& t : tasks) {
            for (int i = 0; i < standbys_; ++i) {
                if (auto pa = prev_active_.find(t); pa != prev_active_.end()) {
                    auto& p = processes_[pa->second.process_id];
                    if (!p.tasks.count(t) && p.member_counts[pa->second.member_id] < tasks_per_member_) {
                        added_total(p.add(pa->second.member_id, t, false));
                        continue;
                    }
                }
                if (auto ps = prev_standby_.find(t); ps != prev_standby_.end()) {
                    auto prev = least_loaded_prev(ps->second, &t);
                    if (prev && processes_[prev->process_id].member_counts[prev->member_id] < tasks_per_member_) {
                        added_total(processes_[prev->process_id].add(prev->member_id, t, false));
                        continue;
                    }
                }
                to_least_loaded.push_back({t, standbys_ - i});
                break;
            }
        }
        std::sort(to_least_loaded.begin(), to_least_loaded.end(),
                  [](const auto& a, const auto& b) { return a.first > b.first; });
        for (const auto& [t, remaining] : to_least_loaded)
            for (int i = 0; i < remaining; ++i) {
                auto* p = least_loaded_process(&t);
                if (!p) break;  // not enough capacity (Kafka logs a warning)
                int n = p->add_to_least_loaded(t, false);
                if (n == -1) break;
                added_total(n);
            }
    }

    std::map<std::string, tasks_tuple> result(const std::map<std::string, streams_assignor_member>& members) const {
        std::map<std::string, tasks_tuple> out;
        for (const auto& [id, _] : members) out[id];
        for (const auto& [pid, p] : processes_) {
            for (const auto& [m, ts] : p.active)
                for (const auto& t : ts) out[m].active[t.first].insert(t.second);
            for (const auto& [m, ts] : p.standby)
                for (const auto& t : ts) out[m].standby[t.first].insert(t.second);
        }
        return out;
    }

    int32_t standbys() const { return standbys_; }

private:
    void added_active(int n) {
        if (n == active_per_member_) {
            --active_capacity_;
            total_active_ -= n;
            active_per_member_ = per_member(total_active_, active_capacity_);
        }
        added_total(n);
    }
    void added_total(int n) {
        if (n == tasks_per_member_) {
            --task_capacity_;
            total_tasks_ -= n;
            tasks_per_member_ = per_member(total_tasks_, task_capacity_);
        }
    }
    // The least loaded process; with `without`, the least loaded one not
    // holding that task (assignStandbyToMemberWithLeastLoad's retries).
    process_state* least_loaded_process(const task* without) {
        process_state* best = nullptr;
        for (auto& [_, p] : processes_) {
            if (without && p.tasks.count(*without)) continue;
            if (!best || p.load() < best->load()) best = &p;
        }
        return best;
    }
    // findPrevMemberWithLeastLoad
    std::optional<member_ref> least_loaded_prev(const std::vector<member_ref>& prev, const task* t) {
        if (prev.empty()) return std::nullopt;
        member_ref cand = prev[0];
        auto& cp = processes_[cand.process_id];
        double cand_process_load = cp.load();
        double cand_member_load = cp.member_counts[cand.member_id];
        for (size_t i = 1; i < prev.size(); ++i) {
            auto& p = processes_[prev[i].process_id];
            if (p.load() < cand_process_load && (!t || !p.tasks.count(*t)) &&
                p.member_counts[prev[i].member_id] < cand_member_load) {
                cand_process_load = p.load();
                cand_member_load = p.member_counts[prev[i].member_id];
                cand = prev[i];
            }
        }
        if (!t || !processes_[cand.process_id].tasks.count(*t)) return cand;
        return std::nullopt;
    }

    int32_t standbys_;
    int total_tasks_ = 0, total_active_ = 0;
    int active_capacity_ = 0, task_capacity_ = 0;
    int active_per_member_ = 0, tasks_per_member_ = 0;
    std::map<std::string, process_state> processes_;
    std::map<task, member_ref> prev_active_;
    std::map<task, std::vector<member_ref>> prev_standby_;
};

}  // namespace

std::map<std::string, tasks_tuple> assign_tasks(const std::map<std::string, streams_assignor_member>& members,
                                                const std::map<std::string, streams_assignor_subtopology>& topology,
                                                int32_t num_standby_replicas) {
    if (members.empty()) return {};
    sticky s(members, topology, std::max(0, num_standby_replicas));
    std::vector<task> active, stateful;
    for (const auto& [sub, t] : topology)
        for (int32_t p = 0; p < t.number_of_tasks; ++p) {
            active.push_back({sub, p});
            if (t.stateful) stateful.push_back({sub, p});
        }
    s.assign_active(active);
    if (s.standbys() > 0) s.assign_standby(stateful);
    return s.result(members);
}

}  // namespace ketch::group
