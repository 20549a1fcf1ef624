import PredicateDSL

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads a record from a snapshot: a `Decoder` whose keyed container is the
/// snapshot's keys, with no round trip through JSON.
///
/// `Decodable`'s protocol lets a type ask for any container; a record asks
/// for a keyed one, and a value inside it (a `RawRepresentable` enum, a
/// wrapper) for a single value, which ``RecordValueDecoder`` gives.
///
/// A class, so that its keyed container holds one reference where the
/// snapshot would be three, copied at every read through the container's
/// box.
///
/// Each thread reads its records with a decoder of its own, made for its
/// first record and released when the thread ends (``read(_:from:)``), and
/// the decoder keeps the keyed container it last handed out: a record type
/// asks for a container of the same key type for every record, and making
/// one (the standard library's box, allocated, and its type and
/// conformance looked up at run time) costs more than reading a few
/// attributes. A thread-local decoder needs no lock (a shared pool's took
/// a tenth of a record's time).
final class RecordDecoder: Decoder {
  /// The snapshot being read, where the caller holds it, read in place (a
  /// copy held by the decoder would cost retaining and releasing its
  /// references for every record, and a stored snapshot that changes would
  /// be copied at every read); nil between records.
  @exclusivity(unchecked) private var reading: UnsafePointer<ObjectSnapshot>?
  /// The key type of ``keyed``.
  private var keyType: ObjectIdentifier?
  /// The keyed container last handed out, a `KeyedDecodingContainer` of
  /// ``keyType``, in storage of its own (its layout is known only at run
  /// time), with the way to destroy it. It reads whatever snapshot the
  /// decoder reads.
  private var keyed: (storage: UnsafeMutableRawPointer, destroy: (UnsafeMutableRawPointer) -> Void)?

  /// The slots of the keys a record read, in the order it read them, for
  /// the entity it read them from: a record type reads its keys in the
  /// same order for every record, so the next read's key is most likely
  /// the cached one, whose slot is then taken after one comparison of the
  /// names instead of a search of the entity's keys. In storage of the
  /// decoder's own, changed in place.
  private let slots: UnsafeMutablePointer<SlotCache>

  /// The key under which each thread keeps its decoder; its destructor
  /// releases the decoder when the thread ends.
  private static let threadKey: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key) { releaseThreadDecoder($0) }
    precondition(status == 0, "pthread_key_create failed with \(status)")
    return key
  }()

  /// Reads `snapshot` as a record with the thread's decoder (or, for a
  /// record read while the thread reads another, a decoder of its own).
  static func read<Record: Decodable>(_ type: Record.Type, from snapshot: ObjectSnapshot) throws -> Record {
    let decoder: RecordDecoder
    if let stored = pthread_getspecific(threadKey) {
      decoder = Unmanaged<RecordDecoder>.fromOpaque(stored).takeUnretainedValue()
      if decoder.reading != nil {
        return try nested(Record.self, from: snapshot)
      }
    } else {
      decoder = RecordDecoder()
      pthread_setspecific(threadKey, Unmanaged.passRetained(decoder).toOpaque())
    }
    return try decoder.read(Record.self, from: snapshot)
  }

  /// Reads a record while the thread's decoder reads another (a record's
  /// `init(from:)` that decodes a snapshot), with a decoder of its own.
  @inline(never)
  private static func nested<Record: Decodable>(_ type: Record.Type, from snapshot: ObjectSnapshot) throws -> Record {
    let decoder = RecordDecoder()
    // Its kept container holds it: let the container go, or neither goes.
    defer { decoder.forgetContainer() }
    return try decoder.read(Record.self, from: snapshot)
  }

  /// Reads `snapshot` with this decoder.
  @inline(__always)
  private func read<Record: Decodable>(_ type: Record.Type, from snapshot: ObjectSnapshot) throws -> Record {
    try withUnsafePointer(to: snapshot) { snapshot in
      reading = snapshot
      slots.pointee.next = 0
      defer { reading = nil }
      return try Record(from: self)
    }
  }

  /// Releases a thread's decoder as the thread ends; its kept container,
  /// which holds it, first.
  fileprivate static func release(_ pointer: UnsafeMutableRawPointer) {
    let decoder = Unmanaged<RecordDecoder>.fromOpaque(pointer).takeRetainedValue()
    decoder.forgetContainer()
  }

  private init() {
    slots = .allocate(capacity: 1)
    slots.initialize(to: SlotCache())
  }

  deinit {
    slots.deinitialize(count: 1)
    slots.deallocate()
  }

  /// Where the snapshot being read is.
  ///
  /// - Precondition: A record is being read: a decoder or container kept
  ///   by a record's `init(from:)` past its return reads nothing.
  @inline(__always)
  private var current: UnsafePointer<ObjectSnapshot> {
    guard let reading else { Self.usedAfterReading() }
    return reading
  }

  @inline(never)
  private static func usedAfterReading() -> Never {
    preconditionFailure("a record's decoder or keyed container was used after the record's init(from:) returned")
  }

  /// The snapshot being read (a copy).
  var snapshot: ObjectSnapshot { current.pointee }

  /// The snapshot's value of `key`, read in place: the snapshot is not
  /// copied around the lookup of the key's slot (which would retain and
  /// release its three references), since its holder keeps it, unchanged,
  /// while the record is read.
  @inline(__always)
  func property(_ key: String) -> PropertyValue? {
    let snapshot = current
    let layout = Unmanaged.passUnretained(snapshot.pointee.layout)
    let found = slots.pointee.slot(key, in: layout)
    switch found {
    case .attribute(let slot): return .attribute(snapshot.pointee.values[slot])
    case .relationship(let slot): return .relationship(snapshot.pointee.relationships[slot])
    case nil: return nil
    }
  }

  /// Destroys the kept container.
  private func forgetContainer() {
    guard let keyed else { return }
    self.keyed = nil
    keyType = nil
    keyed.destroy(keyed.storage)
  }

  /// The slots of the keys read so far, in reading order, for one entity
  /// (a nested type: the decoder's alone).
  struct SlotCache {
    /// The entity the slots are of (its layout's address).
    var layout: UnsafeMutableRawPointer?
    /// Each read's key and its slot (nil for a key the entity does not
    /// have).
    var entries: [(key: String, slot: PropertySlot?)] = []
    /// The index of the next read in ``entries``.
    var next = 0

    /// The slot of `key` in `layout`: the cached one when the read at this
    /// place was of the same key in the same entity, else searched for and
    /// cached.
    @inline(__always)
    mutating func slot(_ key: String, in layout: Unmanaged<EntityLayout>) -> PropertySlot? {
      let index = next
      next = index + 1
      let entity = layout.toOpaque()
      if entity == self.layout, index < entries.count, entries[index].key == key { return entries[index].slot }
      return miss(key, at: index, in: layout, entity: entity)
    }

    @inline(never)
    private mutating func miss(
      _ key: String, at index: Int, in layout: Unmanaged<EntityLayout>, entity: UnsafeMutableRawPointer
    ) -> PropertySlot? {
      if entity != self.layout {
        self.layout = entity
        entries.removeAll(keepingCapacity: true)
      }
      let slot = layout._withUnsafeGuaranteedRef { $0.slot(key) }
      if index < entries.count {
        entries[index] = (key, slot)
      } else if index == entries.count {
        entries.append((key, slot))
      }
      return slot
    }
  }

  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    if keyType == ObjectIdentifier(Key.self), let keyed {
      return keyed.storage.assumingMemoryBound(to: KeyedDecodingContainer<Key>.self).pointee
    }
    let made = KeyedDecodingContainer(RecordKeyedDecodingContainer<Key>(decoder: self))
    forgetContainer()
    let storage = UnsafeMutablePointer<KeyedDecodingContainer<Key>>.allocate(capacity: 1)
    storage.initialize(to: made)
    keyType = ObjectIdentifier(Key.self)
    keyed = (
      UnsafeMutableRawPointer(storage),
      { raw in
        let typed = raw.assumingMemoryBound(to: KeyedDecodingContainer<Key>.self)
        typed.deinitialize(count: 1)
        typed.deallocate()
      }
    )
    return made
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw RecordDecoder.error(snapshot.entityName, "a record reads an object's keys; it has no unkeyed form")
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw RecordDecoder.error(snapshot.entityName, "a record reads an object's keys; it is not a single value")
  }

  /// `Person has no key 'agee' (did you mean 'age'?)`: a record's key that
  /// its entity does not have.
  static func unknownKey(_ key: String, of entity: String, keys: [String]) -> ObjectGraphError {
    let guess = UnknownField.suggestion(for: key, among: keys).map { " (did you mean '\($0)'?)" } ?? ""
    return ObjectGraphError(
      .unknownKey,
      "\(entity) has no key '\(key)'\(guess): name the record's property after a key, or map it with CodingKeys")
  }

  /// An error about a record of `entity`: `Person.age: the integer 300 does
  /// not fit UInt8`.
  static func error(_ place: String, _ reason: String) -> ObjectGraphError {
    ObjectGraphError(.typeMismatch, "\(place): \(reason)")
  }
}

/// The thread-local decoder's destructor (its argument is optional on some
/// platforms, not on others: one function for each).
private func releaseThreadDecoder(_ pointer: UnsafeMutableRawPointer?) {
  if let pointer { RecordDecoder.release(pointer) }
}

private func releaseThreadDecoder(_ pointer: UnsafeMutableRawPointer) {
  RecordDecoder.release(pointer)
}
