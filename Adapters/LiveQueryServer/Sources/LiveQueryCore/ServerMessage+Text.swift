import ContextWatching
import WatchFormats

extension ServerMessage {
  /// The message as the text of a frame: ``json`` serialized, byte for
  /// byte, but written straight into one buffer, without building the
  /// `JSONValue` tree of the message first.
  public var text: String {
    var writer = JSONTextWriter()
    writer.message(self)
    return writer.text
  }
}

/// Writes JSON text into one growing byte buffer, with the output of
/// `JSONValue.serialized`: compact, members in the order written, the
/// same escapes, numbers written by `String(_:)` and `description`.
///
/// Invariant: `bytes` is valid UTF-8 between calls (strings are copied
/// from their UTF-8 form, and every escape is ASCII).
struct JSONTextWriter {
  private var bytes: [UInt8] = []

  init() { bytes.reserveCapacity(512) }

  /// The text written.
  var text: String { String(decoding: bytes, as: UTF8.self) }

  // MARK: Messages, in the member order of `ServerMessage.json`

  mutating func message(_ message: ServerMessage) {
    raw(#"{"v":"#)
    int(Int(LiveProtocol.version))
    switch message {
    case .snapshot(let message):
      header("snapshot", id: message.id, sequenceNumber: message.sequenceNumber)
      raw(#","sections":"#)
      array(message.sections) { $0.section($1) }
      raw(#","objects":"#)
      array(message.objects) { $0.object($1) }
    case .changes(let message):
      header("changes", id: message.id, sequenceNumber: message.sequenceNumber)
      raw(#","deletedSections":"#)
      array(message.deletedSections) { $0.int($1) }
      raw(#","insertedSections":"#)
      array(message.insertedSections) { $0.section($1) }
      raw(#","deleted":"#)
      array(message.deleted) { $0.row($1) }
      raw(#","inserted":"#)
      array(message.inserted) { $0.row($1) }
      raw(#","moved":"#)
      array(message.moved) { $0.move($1) }
      raw(#","updated":"#)
      array(message.updated) { $0.row($1) }
    case .event(let message):
      header("event", id: message.id, sequenceNumber: message.sequenceNumber)
      raw(#","inserted":"#)
      array(message.inserted) { $0.object($1) }
      raw(#","updated":"#)
      array(message.updated) { $0.object($1) }
      raw(#","entered":"#)
      array(message.entered) { $0.object($1) }
      raw(#","exited":"#)
      array(message.exited) { $0.object($1) }
      raw(#","deleted":"#)
      array(message.deleted) { $0.object($1) }
    case .error(let error):
      raw(#","op":"error","id":"#)
      optionalString(error.id)
      raw(#","code":"#)
      string(error.code.name)
      raw(#","message":"#)
      string(error.message)
    case .pong(let id):
      raw(#","op":"pong","id":"#)
      optionalString(id)
    case .ready(let sequenceNumber, let session, let resumed):
      raw(#","op":"ready","seq":"#)
      int(sequenceNumber)
      raw(#","session":"#)
      optionalString(session)
      raw(resumed ? #","resumed":true"# : #","resumed":false"#)
    }
    bytes.append(UInt8(ascii: "}"))
  }

  private mutating func header(_ op: StaticString, id: String, sequenceNumber: Int) {
    raw(#","op":""#)
    raw(op)
    raw(#"","id":"#)
    string(id)
    raw(#","seq":"#)
    int(sequenceNumber)
  }

  private mutating func array<Element>(_ elements: [Element], _ write: (inout Self, Element) -> Void) {
    bytes.append(UInt8(ascii: "["))
    for (index, element) in elements.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      write(&self, element)
    }
    bytes.append(UInt8(ascii: "]"))
  }

  private mutating func section(_ section: LiveSection) {
    raw(#"{"index":"#)
    int(section.index)
    raw(#","name":"#)
    optionalString(section.name)
    raw(#","count":"#)
    int(section.count)
    bytes.append(UInt8(ascii: "}"))
  }

  /// An object's members, without its braces: `"ref"`, then `"values"`
  /// and `"changed"` when it has them.
  private mutating func objectMembers(_ object: LiveObject) {
    raw(#""ref":"#)
    string(object.ref)
    if let values = object.values {
      raw(#","values":"#)
      value(values)
    }
    if !object.changedKeys.isEmpty {
      raw(#","changed":"#)
      array(object.changedKeys) { $0.string($1) }
    }
  }

  private mutating func object(_ object: LiveObject) {
    bytes.append(UInt8(ascii: "{"))
    objectMembers(object)
    bytes.append(UInt8(ascii: "}"))
  }

  private mutating func row(_ row: LiveRow) {
    raw(#"{"path":"#)
    path(row.path)
    bytes.append(UInt8(ascii: ","))
    objectMembers(row.object)
    bytes.append(UInt8(ascii: "}"))
  }

  private mutating func move(_ move: LiveMove) {
    raw(#"{"from":"#)
    path(move.from)
    raw(#","to":"#)
    path(move.to)
    bytes.append(UInt8(ascii: ","))
    objectMembers(move.object)
    bytes.append(UInt8(ascii: "}"))
  }

  private mutating func path(_ path: ListIndexPath) {
    bytes.append(UInt8(ascii: "["))
    int(path.section)
    bytes.append(UInt8(ascii: ","))
    int(path.item)
    bytes.append(UInt8(ascii: "]"))
  }

  // MARK: Values

  /// A JSON value, as `JSONValue.serialized` writes it.
  mutating func value(_ value: JSONValue) {
    switch value {
    case .null: raw("null")
    case .bool(let flag): raw(flag ? "true" : "false")
    case .int(let number): bytes.append(contentsOf: String(number).utf8)
    case .double(let number):
      if number.isFinite {
        bytes.append(contentsOf: number.description.utf8)
      } else {
        raw("null")
      }
    case .string(let text): string(text)
    case .array(let elements): array(elements) { $0.value($1) }
    case .object(let members):
      bytes.append(UInt8(ascii: "{"))
      for (index, member) in members.enumerated() {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        string(member.key)
        bytes.append(UInt8(ascii: ":"))
        self.value(member.value)
      }
      bytes.append(UInt8(ascii: "}"))
    }
  }

  private mutating func int(_ number: Int) { bytes.append(contentsOf: String(number).utf8) }

  private mutating func optionalString(_ text: String?) {
    if let text { string(text) } else { raw("null") }
  }

  /// A string literal: `"` and `\` escaped, as are the control characters
  /// (`\n`, `\r`, `\t`, else `\u00xx`); every other byte of its UTF-8 copied
  /// as it is, in runs.
  mutating func string(_ text: String) {
    bytes.append(UInt8(ascii: "\""))
    var text = text
    text.withUTF8 { utf8 in
      var start = 0
      for index in utf8.indices {
        let byte = utf8[index]
        guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
        start = index + 1
        switch byte {
        case UInt8(ascii: "\""): raw(#"\""#)
        case UInt8(ascii: "\\"): raw(#"\\"#)
        case UInt8(ascii: "\n"): raw(#"\n"#)
        case UInt8(ascii: "\r"): raw(#"\r"#)
        case UInt8(ascii: "\t"): raw(#"\t"#)
        default:
          let digits: StaticString = "0123456789abcdef"
          raw(#"\u00"#)
          bytes.append(digits.utf8Start[Int(byte >> 4)])
          bytes.append(digits.utf8Start[Int(byte & 0xF)])
        }
      }
      bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
    }
    bytes.append(UInt8(ascii: "\""))
  }

  private mutating func raw(_ text: StaticString) {
    text.withUTF8Buffer { bytes.append(contentsOf: $0) }
  }
}
