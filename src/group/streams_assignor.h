// The streams groups' default task assignor, Kafka 4.3.1's StickyTaskAssignor
// (group-coordinator streams/assignor): active tasks stay with the member
// that had them, then go to a member that had them as standby, then to the
// least loaded process (a process: the members sharing a process id);
// standby tasks of stateful subtopologies (group.streams.num.standby.replicas)
// go to processes without the task, preferring its previous owners. The
// 4.3.1 assignor assigns no warm-up tasks.
#pragma once

#include <map>
#include <string>

#include "group/streams_api.h"

namespace ketch::group {

struct streams_assignor_member {
    std::string process_id;
    tasks_tuple current;  // the member's current target (Kafka's AssignmentMemberSpec tasks)
};

struct streams_assignor_subtopology {
    int32_t number_of_tasks = 0;
    bool stateful = false;
};

// Member id -> its new target assignment (every member present, possibly empty).
std::map<std::string, tasks_tuple> assign_tasks(const std::map<std::string, streams_assignor_member>& members,
                                                const std::map<std::string, streams_assignor_subtopology>& topology,
                                                int32_t num_standby_replicas);

}  // namespace ketch::group
