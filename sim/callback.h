#pragma once
// sim::Callback: what the scheduler and the network run when an event comes due -- a move-only
// `void()` callable that keeps captures of up to kInlineBytes inside itself.
//
// Why not std::function: libstdc++'s keeps only 16 bytes inline, so nearly every event of a run
// (a record buffer in flight captures its batch, its target task and channel) cost a heap
// allocation and a free; on the standard run that was about a tenth of the wall time. C++23's
// std::move_only_function is not in GCC 12, and Boost has no inline-size knob for its functions.
// Larger callables still work: they go to the heap.
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace eosim::sim {

class Callback {
public:
    static constexpr size_t kInlineBytes = 96;

    Callback() = default;
    Callback(std::nullptr_t) {}  // NOLINT(google-explicit-constructor): like std::function
    template <typename F, typename Fn = std::decay_t<F>,
              typename = std::enable_if_t<!std::is_same_v<Fn, Callback> &&
                                          std::is_invocable_r_v<void, Fn&>>>
    Callback(
        F&& f) {  // NOLINT(google-explicit-constructor): a lambda converts, as to std::function
        if constexpr (kFitsInline<Fn>) {
            ::new (static_cast<void*>(storage_)) Fn(std::forward<F>(f));
            ops_ = &kInlineOps<Fn>;
        } else {
            *reinterpret_cast<Fn**>(storage_) = new Fn(std::forward<F>(f));
            ops_ = &kHeapOps<Fn>;
        }
    }
    Callback(Callback&& other) noexcept { take(other); }
    Callback& operator=(Callback&& other) noexcept {
        if (this != &other) {
            reset();
            take(other);
        }
        return *this;
    }
    Callback& operator=(std::nullptr_t) noexcept {
        reset();
        return *this;
    }
    Callback(const Callback&) = delete;
    Callback& operator=(const Callback&) = delete;
    ~Callback() { reset(); }

    explicit operator bool() const { return ops_ != nullptr; }
    // Whether a callable is kept inline (no allocation): for a hot path to assert that it stays so.
    template <typename Fn>
    static constexpr bool kFitsInline =
        sizeof(Fn) <= kInlineBytes &&
        alignof(Fn) <= alignof(std::max_align_t) && std::is_nothrow_move_constructible_v<Fn>;
    // Calling an empty Callback is a programmer error.
    void operator()() { ops_->call(storage_); }

private:
    struct Ops {
        void (*call)(void* storage);
        void (*move)(void* from, void* to) noexcept;  // leaves `from` destroyed
        void (*destroy)(void* storage) noexcept;
    };
    template <typename Fn>
    static constexpr Ops kInlineOps = {
        [](void* storage) { (*static_cast<Fn*>(storage))(); },
        [](void* from, void* to) noexcept {
            ::new (to) Fn(std::move(*static_cast<Fn*>(from)));
            static_cast<Fn*>(from)->~Fn();
        },
        [](void* storage) noexcept { static_cast<Fn*>(storage)->~Fn(); },
    };
    template <typename Fn>
    static constexpr Ops kHeapOps = {
        [](void* storage) { (**static_cast<Fn**>(storage))(); },
        [](void* from, void* to) noexcept { *static_cast<Fn**>(to) = *static_cast<Fn**>(from); },
        [](void* storage) noexcept { delete *static_cast<Fn**>(storage); },
    };

    void take(Callback& other) noexcept {
        if (other.ops_ == nullptr) return;
        other.ops_->move(other.storage_, storage_);
        ops_ = other.ops_;
        other.ops_ = nullptr;
    }
    void reset() noexcept {
        if (ops_ == nullptr) return;
        ops_->destroy(storage_);
        ops_ = nullptr;
    }

    alignas(std::max_align_t) unsigned char storage_[kInlineBytes];
    const Ops* ops_ = nullptr;
};

}  // namespace eosim::sim
