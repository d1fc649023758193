#include "shared/object_reader.h"

#include <algorithm>

namespace ketch::shared {

object_reader::piece_result object_reader::load(objstore::s3_client& s3, const std::string& key, uint64_t offset,
                                                uint64_t end, bool whole) {
    if (disk_) {
        uint64_t at = 0;
        if (auto s = disk_->get(key, offset, end - offset, &at)) {
            memory_.put(key, at, s->b);
            return piece{s->b, at};
        }
    }
    auto got = whole ? s3.get_object(key) : s3.get_object(key, std::pair<uint64_t, uint64_t>{offset, end - 1});
    if (!got.ok()) return failure{"GET " + key + ": " + got.error().describe()};
    if (got->size() != end - offset)
        return failure{"GET " + key + ": " + std::to_string(got->size()) + " bytes where the index says " +
                       std::to_string(end - offset)};
    auto b = std::make_shared<const std::string>(std::move(*got));
    memory_.put(key, offset, b);
    if (disk_) disk_->put(key, offset, *b);
    return piece{std::move(b), offset};
}

result<object_cache::slice, std::string> object_reader::fetch(objstore::s3_client& s3, const std::string& key,
                                                              uint64_t offset, uint64_t end, bool whole) {
    std::shared_ptr<flight> mine, theirs;
    {
        std::lock_guard l(mu_);
        if (auto s = memory_.get(key, offset, end - offset)) return *s;
        for (auto& f : flights_[key])
            if (f->offset <= offset && f->end >= end) theirs = f;
        if (!theirs) {
            mine = std::make_shared<flight>();
            mine->offset = offset;
            mine->end = end;
            mine->wait = mine->done.get_future().share();
            flights_[key].push_back(mine);
        }
    }
    if (theirs) {  // the same bytes are on their way: wait for them
        ++waiting_;
        const piece_result& r = theirs->wait.get();
        --waiting_;
        if (!r.ok()) return failure{r.error()};
        return object_cache::slice{r->b, size_t(offset - r->offset)};
    }
    auto r = load(s3, key, offset, end, whole);
    mine->done.set_value(r);
    {
        std::lock_guard l(mu_);
        auto& v = flights_[key];
        std::erase(v, mine);
        if (v.empty()) flights_.erase(key);
    }
    if (!r.ok()) return failure{r.error()};
    return object_cache::slice{r->b, size_t(offset - r->offset)};
}

result<std::vector<object_cache::slice>, std::string> object_reader::read(objstore::s3_client& s3,
                                                                          const std::vector<wanted_range>& wanted) {
    std::vector<object_cache::slice> out(wanted.size());
    std::map<std::string, std::vector<size_t>> missing;  // by object: indexes into wanted
    for (size_t i = 0; i < wanted.size(); ++i) {
        auto& w = wanted[i];
        if (auto s = memory_.get(w.key, w.offset, w.length))
            out[i] = *s;
        else
            missing[w.key].push_back(i);
    }
    for (auto& [key, idx] : missing) {
        std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return wanted[a].offset < wanted[b].offset; });
        const uint64_t size = wanted[idx.front()].object_size;
        const bool whole = size > 0 && size <= policy_.whole_below;
        for (size_t first = 0; first < idx.size();) {
            // The span [begin, end): the whole object, or ranges no further apart than the gap.
            uint64_t begin = whole ? 0 : wanted[idx[first]].offset, end = whole ? size : begin;
            size_t last = first;
            while (last < idx.size() && (whole || wanted[idx[last]].offset <= end + policy_.coalesce_gap)) {
                end = std::max(end, wanted[idx[last]].offset + wanted[idx[last]].length);
                ++last;
            }
            if (whole && end > size) return failure{"object " + key + " is shorter than its index"};
            auto got = fetch(s3, key, begin, end, whole);
            if (!got.ok()) return failure{got.error()};
            for (size_t j = first; j < last; ++j)
                out[idx[j]] = object_cache::slice{got->b, got->at + size_t(wanted[idx[j]].offset - begin)};
            first = last;
        }
    }
    return out;
}

}  // namespace ketch::shared
