import Foundation

/// What the test process runs under, for the few tests whose figures hold
/// only without instrumentation.
package enum Sanitizers {
  /// Whether AddressSanitizer or ThreadSanitizer runs the process: both
  /// make stack frames several times larger than in a plain build (ASan's
  /// redzones, TSan's instrumentation).
  package static let isOn = isLoaded("__asan_init") || isLoaded("__tsan_init")

  /// Whether the process has the symbol, as a sanitizer's runtime defines
  /// its own.
  private static func isLoaded(_ symbol: String) -> Bool {
    guard let process = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(process) }
    return dlsym(process, symbol) != nil
  }
}
