/// An error of a ``PostgresReplica`` or a ``ChangeStream``: what went wrong
/// and where (the table, column and transaction), in one message.
///
/// ```swift
/// do { try await replica.poll() } catch let error as PostgresReplicaError {
///   print(error)  // unadmittedType: public.person.age: ... (transaction at 0/1504B58)
/// }
/// ```
public struct PostgresReplicaError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The kind of failure; new kinds may be added.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String
    private init(_ name: String) { self.name = name }

    /// The mapping does not match the database's catalog.
    public static let mappingMismatch = Code("mappingMismatch")
    /// A column holds a value of a type its attribute does not admit.
    public static let unadmittedType = Code("unadmittedType")
    /// A row cannot be applied: a value does not parse, a required value is
    /// missing, a foreign key names no row of the replica, or an update or
    /// delete names a row the replica does not hold.
    public static let brokenRow = Code("brokenRow")
    /// A mapped table is gone from the database.
    public static let droppedTable = Code("droppedTable")
    /// The change stream returned a record that is not wal2json output.
    public static let brokenRecord = Code("brokenRecord")
    /// The replication slot does not exist.
    public static let slotMissing = Code("slotMissing")
    /// The slot no longer holds the position to resume from; load again.
    public static let positionNotHeld = Code("positionNotHeld")
    /// Another reader holds the replication slot: a slot has one reader.
    public static let slotInUse = Code("slotInUse")
    /// The connection to the database failed or was lost.
    public static let connectionLost = Code("connectionLost")
    /// A setting is not valid: `PGPORT` is not a port number.
    public static let invalidSetting = Code("invalidSetting")
    /// The server refused a statement of the replica's, or its connection
    /// (a wrong password, a role or database it does not know); its
    /// message says why. Trying again does not help until the cause is
    /// fixed, so a running replica ends with it.
    public static let serverError = Code("serverError")
    /// The replica's context refused the changes of a transaction.
    public static let saveFailed = Code("saveFailed")

    /// The code's name: `brokenRow`.
    public var description: String { name }
  }

  /// The kind of failure.
  public var code: Code
  /// What went wrong and where: `public.person.age: 'abc' is not an integer`.
  public var message: String
  /// The commit position of the transaction that failed, when one did.
  public var position: PostgresPosition?

  /// Creates an error.
  public init(_ code: Code, _ message: String, position: PostgresPosition? = nil) {
    self.code = code
    self.message = message
    self.position = position
  }

  /// `brokenRow: public.person.age: 'abc' is not an integer (transaction at 0/1504B58)`.
  public var description: String {
    "\(code): \(message)" + (position.map { " (transaction at \($0))" } ?? "")
  }
}
