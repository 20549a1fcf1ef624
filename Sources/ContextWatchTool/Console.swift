import Foundation
import PredicateDSL
import WatchFormats

/// Output for the commands: standard output is buffered and flushed at exit
/// (answers are written in order); standard error is written at once.
enum Console {
  /// Writes `text` and a newline to standard error; a standard error that
  /// cannot be written (closed, or a full device) loses the text rather
  /// than ending the command.
  static func error(_ text: String) {
    try? FileHandle.standardError.write(contentsOf: Data((text + "\n").utf8))
  }

  static func flush() {
    fflush(nil)
  }

  /// Writes an input line to standard output as it was read, then a
  /// newline.
  ///
  /// - Precondition: `bytes` are UTF-8 (the JSON reader checked them), so
  ///   decoding them replaces nothing and the bytes written are the bytes
  ///   read.
  static func echo(_ bytes: [UInt8]) {
    print(String(decoding: bytes, as: UTF8.self))
  }

  /// The longest input line read: 64 MiB. A longer line is skipped
  /// without being held in memory and answered with an error, so that
  /// the memory a line takes is bounded.
  static let maximumLineLength = 64 << 20

  /// A line of standard input: its bytes, or how long it was when it is
  /// longer than ``maximumLineLength``.
  enum InputLine {
    case bytes([UInt8])
    case tooLong(Int)

    /// The error for a line that is too long.
    static func tooLongMessage(_ length: Int) -> String {
      "the line is \(length) bytes long, longer than the limit of \(maximumLineLength) bytes (64 MiB); it was skipped"
    }
  }

  /// Every line of standard input as its bytes, `\n` or `\r\n` stripped,
  /// read lazily. The bytes are not decoded: a reader that needs text
  /// checks that they are UTF-8 and reports where they are not.
  static var inputLines: AnySequence<InputLine> {
    AnySequence { AnyIterator(InputLineReader()) }
  }

  /// Whether a line holds nothing but spaces, tabs and carriage returns.
  static func isBlank(_ line: InputLine) -> Bool {
    guard case .bytes(let bytes) = line else { return false }
    return isBlank(bytes)
  }

  /// Whether a line holds nothing but spaces, tabs and carriage returns.
  static func isBlank(_ line: [UInt8]) -> Bool {
    line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
  }
}

/// Splits standard input into lines of bytes, reading it in blocks.
private struct InputLineReader: IteratorProtocol {
  private var block = [UInt8](repeating: 0, count: 1 << 16)
  private var pending: [UInt8] = []
  private var start = 0
  /// Where the search for the next newline resumes: the bytes from
  /// `start` up to here hold none, so a long line is scanned once.
  private var scanned = 0
  private var atEnd = false
  /// The length of a line longer than the limit, counted while its bytes
  /// are dropped; nil while reading a line within it.
  private var skipped: Int?

  mutating func next() -> Console.InputLine? {
    while true {
      if let newline = pending[max(start, scanned)...].firstIndex(of: 0x0A) {
        var end = newline
        if end > start, pending[end - 1] == 0x0D { end -= 1 }
        defer {
          start = newline + 1
          scanned = start
        }
        if let length = skipped {
          skipped = nil
          return .tooLong(length + end - start)
        }
        return end - start > Console.maximumLineLength ? .tooLong(end - start) : .bytes(Array(pending[start..<end]))
      }
      if atEnd {
        guard start < pending.count || skipped != nil else { return nil }
        defer {
          start = pending.count
          skipped = nil
        }
        if let length = skipped { return .tooLong(length + pending.count - start) }
        let length = pending.count - start
        return length > Console.maximumLineLength ? .tooLong(length) : .bytes(Array(pending[start...]))
      }
      if pending.count - start > Console.maximumLineLength {
        // Too long to hold: count its bytes and drop them.
        skipped = (skipped ?? 0) + pending.count - start
        start = pending.count
      }
      scanned = pending.count - start
      pending.removeFirst(start)
      start = 0
      let count = block.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
      if count > 0 {
        pending.append(contentsOf: block[0..<count])
      } else if count == 0 || errno != EINTR {
        atEnd = true
      }
    }
  }
}

/// Reads the command-line arguments after a format as format arguments, or
/// reports the first bad one on standard error and returns nil (usage error).
func formatArguments(_ texts: some Sequence<String>) -> [FilterValue]? {
  var values: [FilterValue] = []
  for text in texts {
    do {
      values.append(try formatArgument(text))
    } catch {
      Console.error("context-watch: argument '\(text)': \(error)")
      return nil
    }
  }
  return values
}

/// Reads a command-line argument as a format argument: JSON when it is JSON
/// (`30`, `true`, `"30"`, `[1, 2]`, `{"$date": 0}`), else the text itself.
func formatArgument(_ text: String) throws(JSONValue.ConversionError) -> FilterValue {
  guard let json = try? JSONValue.parse(text) else { return .string(text) }
  return try json.filterValue()
}
