#pragma once
// Whether this build runs under AddressSanitizer: gcc defines __SANITIZE_ADDRESS__, clang answers
// __has_feature(address_sanitizer) instead. Its shadow memory and quarantine inflate every
// process's memory several times over, so memory limits and bounds do not hold there.
namespace eosim::cli {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace eosim::cli
