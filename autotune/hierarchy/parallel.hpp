// Work spread over threads, for the contraction in rounds (rounds.hpp) and its dense core (core.hpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace {

// f(thread, i) for each i in [0, count), on up to `threads` threads taking `grain` items at a time
// (the calling thread one of them; alone where there is no more than one grain).
template <class F>
void parallel_for(int threads, size_t count, size_t grain, const F& f) {
    if (threads <= 1 || count <= grain) {
        for (size_t i = 0; i < count; ++i) f(0, i);
        return;
    }
    std::atomic<size_t> next{0};
    auto work = [&](int t) {
        while (true) {
            size_t begin = next.fetch_add(grain, std::memory_order_relaxed);
            if (begin >= count) return;
            size_t end = std::min(begin + grain, count);
            for (size_t i = begin; i < end; ++i) f(t, i);
        }
    };
    int used = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), (count + grain - 1) / grain));
    std::vector<std::thread> pool;
    for (int t = 1; t < used; ++t) pool.emplace_back(work, t);
    work(0);
    for (std::thread& thread : pool) thread.join();
}

}  // namespace
