/// A policy that cannot be used: every problem found, each with its place
/// (`entities.Task.attributes.user[1]: Task has no attribute 'titel'`).
public struct ReadPolicyError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The problems, in the order of the file.
  public var messages: [String]

  /// Creates an error.
  public init(messages: [String]) { self.messages = messages }

  /// The problems, one a line.
  public var description: String { messages.joined(separator: "\n") }
}
