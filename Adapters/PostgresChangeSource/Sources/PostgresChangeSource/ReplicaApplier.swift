import Dispatch
import ObjectGraph
import PredicateDSL

/// Applies transactions to the replica's context, one save each, all or
/// nothing, and keeps the map between primary keys and object identifiers.
///
/// `@unchecked Sendable`: every method runs on the context's queue (each
/// begins with `dispatchPrecondition`), and only those methods touch
/// `keys` and `primaryKeys`.
final class ReplicaApplier: @unchecked Sendable {
  let context: ObjectContext
  let mapping: ReplicaMapping
  let authorSource: PostgresReplica.AuthorSource
  private let tables: [String: ResolvedTable]
  /// Objects by entity, then by primary key text.
  private var keys: [String: [String: ObjectID]] = [:]
  /// Primary key text by object.
  private var primaryKeys: [ObjectID: String] = [:]

  init(context: ObjectContext, mapping: ReplicaMapping, authorSource: PostgresReplica.AuthorSource) {
    self.context = context
    self.mapping = mapping
    self.authorSource = authorSource
    tables = Dictionary(uniqueKeysWithValues: mapping.resolved.map { ($0.qualifiedName, $0) })
  }

  /// Whether any change of `transaction` is to a mapped table.
  func touchesMappedTables(_ transaction: ReplicationTransaction) -> Bool {
    transaction.changes.contains { tables[$0.qualifiedTable] != nil }
  }

  /// The primary key, as text, of an object of the replica.
  func primaryKey(of id: ObjectID) -> String? {
    dispatchPrecondition(condition: .onQueue(context.queue))
    return primaryKeys[id]
  }

  /// The author of a transaction, from the configured source.
  func author(of transaction: ReplicationTransaction) -> String? {
    switch authorSource {
    case .none: return nil
    case .message(let prefix): return transaction.messages.last { $0.prefix == prefix }?.content
    case .column(let column):
      for change in transaction.changes where tables[change.qualifiedTable] != nil {
        let row = change.kind == .delete ? change.identity : change.columns
        if let text = row.first(where: { $0.name == column })?.text { return text }
      }
      return nil
    }
  }

  /// The entries of `keys` and `primaryKeys` as they were before the
  /// transaction being applied changed them, in the order it did: what a
  /// failed transaction puts back. The maps are changed in place, so that a
  /// transaction costs what it changes, not what the replica holds.
  private var keyJournal: [(entity: String, key: String, id: ObjectID?)] = []
  private var primaryKeyJournal: [(id: ObjectID, key: String?)] = []

  private func setKey(_ entity: String, _ key: String, _ id: ObjectID?) {
    keyJournal.append((entity, key, keys[entity]?[key]))
    keys[entity, default: [:]][key] = id
  }

  private func setPrimaryKey(_ id: ObjectID, _ key: String?) {
    primaryKeyJournal.append((id, primaryKeys[id]))
    primaryKeys[id] = key
  }

  /// Removes a deleted object's key from the maps, from `keys` only while
  /// the key still names the object.
  private func forget(_ id: ObjectID, of entity: String) {
    guard let key = primaryKeys.removeValue(forKey: id), keys[entity]?[key] == id else { return }
    keys[entity]?[key] = nil
  }

  /// Puts the maps back as they were before the transaction.
  private func undoKeys() {
    for (entity, key, id) in keyJournal.reversed() { keys[entity, default: [:]][key] = id }
    for (id, key) in primaryKeyJournal.reversed() { primaryKeys[id] = key }
  }

  /// Applies one transaction as one save; on any problem the context is
  /// rolled back to its last save and the error says what and where.
  func apply(_ transaction: ReplicationTransaction) throws(PostgresReplicaError) -> ContextSave? {
    dispatchPrecondition(condition: .onQueue(context.queue))
    keyJournal.removeAll(keepingCapacity: true)
    primaryKeyJournal.removeAll(keepingCapacity: true)
    // The objects the transaction's rows delete, by entity: their keys leave
    // `keys` as the deletes are applied, so that a later change of the
    // transaction may insert the key again or move another row onto it,
    // and leave `primaryKeys` only after the save (see below).
    var deleted: [(entity: String, id: ObjectID)] = []
    do {
      // Foreign keys are set once all rows are in, from each object's last
      // image: a row the transaction changes again (a referenced row deleted
      // later sets it NULL) links as it was at commit.
      // An update's before image goes with its row: the foreign key of a
      // value wal2json leaves out (see `column`) reads from it.
      var links: [ObjectID: (ManagedObject, ResolvedTable, [ColumnValue], before: [ColumnValue]?)] = [:]
      var linkOrder: [ObjectID] = []
      func link(
        _ object: ManagedObject, _ table: ResolvedTable, _ columns: [ColumnValue], before: [ColumnValue]? = nil
      ) {
        if links.updateValue((object, table, columns, before), forKey: object.objectID) == nil {
          linkOrder.append(object.objectID)
        }
      }
      for change in transaction.changes {
        guard let table = tables[change.qualifiedTable] else { continue }
        switch change.kind {
        case .insert:
          let key = try primaryKey(change.columns, table)
          guard keys[table.entity]?[key] == nil else {
            throw PostgresReplicaError(
              .brokenRow, "\(table.qualifiedName): inserted row \(table.primaryKey) = \(key) is already replicated")
          }
          let object = try insert(change.columns, table)
          setKey(table.entity, key, object.objectID)
          setPrimaryKey(object.objectID, key)
          link(object, table, change.columns)
        case .update:
          let oldKey = try primaryKey(change.identity, table)
          let object = try existing(oldKey, table, change.kind)
          try context.setValues(try values(change.columns, table, before: change.identity), of: object)
          let newKey = try primaryKey(change.columns, table, before: change.identity)
          if newKey != oldKey {
            setKey(table.entity, oldKey, nil)
            setKey(table.entity, newKey, object.objectID)
            setPrimaryKey(object.objectID, newKey)
          }
          link(object, table, change.columns, before: change.identity)
        case .delete:
          let key = try primaryKey(change.identity, table)
          let object = try existing(key, table, change.kind)
          if !object.isDeleted { try context.delete(object) }
          setKey(table.entity, key, nil)
          deleted.append((table.entity, object.objectID))
        case .truncate:
          for (key, id) in keys[table.entity] ?? [:] {
            if let object = context.object(with: id), !object.isDeleted { try context.delete(object) }
            setKey(table.entity, key, nil)
            deleted.append((table.entity, id))
          }
        }
      }
      for id in linkOrder {
        guard let (object, table, columns, before) = links[id], !object.isDeleted else { continue }
        for foreignKey in table.foreignKeys {
          let target = try destination(foreignKey, columns, table, before: before)
          try context.setRelationship(foreignKey.relationship, of: object, to: target)
        }
      }
      // Every object of the save has its key in `primaryKeys` during the
      // save, deleted ones too, so that the context's observers can name
      // each by its key. Afterwards a deleted object's key goes; its entry
      // in `keys` goes only if the key still names that object, not a row
      // the transaction inserted or moved onto the key after the delete.
      // The save's deletions include those of the context's delete rules;
      // the rows' deletes include objects the transaction both inserted and
      // deleted, which the save does not list.
      let save = try context.save(author: author(of: transaction))
      for (entity, id) in deleted { forget(id, of: entity) }
      for snapshot in save?.deleted ?? [] { forget(snapshot.objectID, of: snapshot.entityName) }
      return save
    } catch {
      context.rollback()
      undoKeys()
      throw Self.replicaError(error, at: transaction.position)
    }
  }

  /// Inserts every row of a load and saves once; on any problem nothing is
  /// inserted.
  func load(_ rows: [(ResolvedTable, [[ColumnValue]])]) throws(PostgresReplicaError) -> ContextSave? {
    dispatchPrecondition(condition: .onQueue(context.queue))
    let previous = (keys: keys, primaryKeys: primaryKeys)
    do {
      var links: [(ManagedObject, ResolvedTable, [ColumnValue])] = []
      for (table, tableRows) in rows {
        for row in tableRows {
          let key = try primaryKey(row, table)
          let object = try insert(row, table)
          keys[table.entity, default: [:]][key] = object.objectID
          primaryKeys[object.objectID] = key
          links.append((object, table, row))
        }
      }
      for (object, table, columns) in links {
        for foreignKey in table.foreignKeys {
          let target = try destination(foreignKey, columns, table)
          try context.setRelationship(foreignKey.relationship, of: object, to: target)
        }
      }
      return try context.save(author: nil)
    } catch {
      context.rollback()
      (keys, primaryKeys) = previous
      throw Self.replicaError(error, at: nil)
    }
  }

  private static func replicaError(_ error: any Error, at position: PostgresPosition?) -> PostgresReplicaError {
    switch error {
    case var error as PostgresReplicaError:
      error.position = position
      return error
    case let error as ContextSaveError:
      return PostgresReplicaError(.saveFailed, "the replica refused the changes: \(error)", position: position)
    default:
      return PostgresReplicaError(.brokenRow, "\(error)", position: position)
    }
  }

  private func insert(_ row: [ColumnValue], _ table: ResolvedTable) throws -> ManagedObject {
    try context.insert(table.entity, values: try values(row, table))
  }

  private func existing(
    _ key: String, _ table: ResolvedTable, _ kind: RowChange.Kind
  ) throws(PostgresReplicaError) -> ManagedObject {
    guard let id = keys[table.entity]?[key], let object = context.object(with: id) else {
      throw PostgresReplicaError(
        .brokenRow, "\(table.qualifiedName): \(kind) of row \(table.primaryKey) = \(key), which is not replicated")
    }
    return object
  }

  /// The column `name` of `row`.
  ///
  /// For an update, `before` is the row's before image. wal2json leaves
  /// out of an update's row every value stored out of line (TOAST) that the
  /// update did not change; the before image, whole under `REPLICA
  /// IDENTITY FULL`, holds it, and the column reads from there. A column
  /// that neither has is gone from the table.
  private func column(
    _ name: String, _ row: [ColumnValue], _ table: ResolvedTable, before: [ColumnValue]? = nil
  ) throws(PostgresReplicaError)
    -> ColumnValue
  {
    guard let value = row.first(where: { $0.name == name }) ?? before?.first(where: { $0.name == name }) else {
      throw PostgresReplicaError(
        .brokenRow, "\(table.qualifiedName).\(name): the row has no such column (was it dropped?)")
    }
    guard value.isUTF8 else {
      throw PostgresReplicaError(
        .brokenRow,
        "\(table.qualifiedName).\(name): the value is not UTF-8 text (a database whose encoding is SQL_ASCII"
          + " stores bytes unchecked); store UTF-8 there, or skip the transaction with the skip policy")
    }
    return value
  }

  private func primaryKey(
    _ row: [ColumnValue], _ table: ResolvedTable, before: [ColumnValue]? = nil
  ) throws(PostgresReplicaError) -> String {
    guard let text = try column(table.primaryKey, row, table, before: before).text else {
      throw PostgresReplicaError(.brokenRow, "\(table.qualifiedName).\(table.primaryKey): the primary key is NULL")
    }
    return text
  }

  /// The values of a row's mapped attributes. For an update (`before` is
  /// its before image), an attribute whose column the row leaves out, an
  /// unchanged value stored out of line (see `column`), is left out too:
  /// the object keeps its value.
  private func values(
    _ row: [ColumnValue], _ table: ResolvedTable, before: [ColumnValue]? = nil
  ) throws(PostgresReplicaError)
    -> [String: FilterValue]
  {
    var values: [String: FilterValue] = [:]
    // Both images hold every column but the ones left out: only a row
    // shorter than its before image needs the look-up.
    let partial = before.map { row.count < $0.count } ?? false
    for attribute in table.attributes {
      if partial, !row.contains(where: { $0.name == attribute.column }),
        before?.contains(where: { $0.name == attribute.column }) == true
      {
        continue
      }
      let value = try column(attribute.column, row, table)
      switch ColumnConversion.value(value.text, oid: value.typeOID, as: attribute.type) {
      case .success(let converted): values[attribute.name] = converted
      case .failure(let problem):
        let code: PostgresReplicaError.Code
        if case .unadmitted = problem { code = .unadmittedType } else { code = .brokenRow }
        throw PostgresReplicaError(
          code, "\(table.qualifiedName).\(attribute.column) (\(table.entity).\(attribute.name)): \(problem.message)")
      }
    }
    return values
  }

  private func destination(
    _ foreignKey: ResolvedTable.ForeignKey, _ row: [ColumnValue], _ table: ResolvedTable,
    before: [ColumnValue]? = nil
  ) throws(PostgresReplicaError) -> ManagedObject? {
    guard let text = try column(foreignKey.column, row, table, before: before).text else { return nil }
    guard let id = keys[foreignKey.destination]?[text], let object = context.object(with: id) else {
      throw PostgresReplicaError(
        .brokenRow,
        "\(table.qualifiedName).\(foreignKey.column) (\(table.entity).\(foreignKey.relationship)) = \(text)"
          + " names no replicated \(foreignKey.destination)")
    }
    return object
  }
}
