import Foundation

/// The server process's CPU time and resident memory, from /proc (Linux);
/// nil elsewhere.
struct ProcessUsage {
  var cpuSeconds: Double
  var residentBytes: Int

  static func read() -> ProcessUsage? {
    guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
      let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return nil }
    // After the command's closing parenthesis: state is field 3, utime and
    // stime are fields 14 and 15 (man 5 proc), in clock ticks.
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
      let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return nil }
    return ProcessUsage(cpuSeconds: (user + system) / ticks, residentBytes: kilobytes * 1024)
  }
}
