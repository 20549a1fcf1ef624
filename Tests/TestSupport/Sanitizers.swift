import Foundation

/// What the test process runs under, for the few tests whose figures hold
/// only without instrumentation.
package enum Sanitizers {
  /// Whether AddressSanitizer's runtime is loaded: its redzones make stack
  /// frames several times larger than in a plain build.
  package static let isAddressSanitizerOn: Bool = {
    guard let process = dlopen(nil, RTLD_NOW) else { return false }
    defer { dlclose(process) }
    return dlsym(process, "__asan_init") != nil
  }()
}
