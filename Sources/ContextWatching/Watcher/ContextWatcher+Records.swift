public import ObjectGraph
public import PredicateDSL

extension ContextWatcher {
  /// Adds a watch of the record's entity (and its sub-entities); its
  /// deliveries read as records with `ObjectSnapshot.decode(_:)`.
  ///
  /// ```swift
  /// let token = try watcher.watch(
  ///   Person.self, where: "age >= %d", 60,
  ///   handler: .changes { changes in
  ///     for update in changes.entered { print("now a senior:", try update.after.decode(Person.self).name) }
  ///   })
  /// ```
  ///
  /// - Throws: ``WatchError``, as `watch(_:where:_:options:handler:)`.
  public func watch<Record: EntityRecord>(
    _ type: Record.Type, where format: String, _ arguments: FilterValue..., options: WatchOptions = WatchOptions(),
    handler: WatchHandler? = nil
  ) throws(WatchError) -> WatchToken {
    try watch(Record.entityName, where: format, arguments: arguments, options: options, handler: handler)
  }

  /// Adds a watch of every object of the record's entity (and of its
  /// sub-entities).
  ///
  /// - Throws: ``WatchError``, as `watch(_:options:handler:)`.
  public func watch<Record: EntityRecord>(
    _ type: Record.Type, options: WatchOptions = WatchOptions(), handler: WatchHandler? = nil
  ) throws(WatchError) -> WatchToken {
    try watch(Record.entityName, options: options, handler: handler)
  }
}
