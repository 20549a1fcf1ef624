import ContextWatching
import LiveQueryCore
import ObjectGraph
import PredicateDSL
import Testing
import WatchFormats

@Suite struct ProtocolTests {
  @Test func clientMessagesRoundTrip() throws {
    let messages: [ClientMessage] = [
      .subscribe(
        SubscribeRequest(
          id: "s1", entity: "Task", predicate: "priority > %@", arguments: [.int(2)],
          sortKeys: [.ascending("status"), .descending("priority")], sectionKey: "status", limit: 10)),
      .watch(WatchRequest(id: "w1", entity: "Task", predicate: "status == 'open'", events: [.inserted, .exited])),
      .update(UpdateRequest(id: "s1", arguments: [.double(-.infinity)], sectionKey: .some(nil), limit: .some(5))),
      .unsubscribe(id: "s1"), .ping(id: "p"), .ping(id: nil),
    ]
    for message in messages {
      #expect(try ClientMessage.parse(message.text) == message)
    }
    #expect(
      messages[0].text
        == #"{"v":1,"op":"subscribe","id":"s1","entity":"Task","predicate":"priority > %@","args":[2],"sort":[{"key":"status","ascending":true},{"key":"priority","ascending":false}],"section":"status","limit":10}"#
    )
    #expect(
      messages[2].text == #"{"v":1,"op":"update","id":"s1","args":[{"$double":"-Infinity"}],"section":null,"limit":5}"#)
  }

  @Test func serverMessagesRoundTrip() throws {
    let object = LiveObject(ref: "00ab", values: .object([("title", .string("a"))]), changedKeys: ["title"])
    let messages: [ServerMessage] = [
      .snapshot(
        SnapshotMessage(
          id: "s1", sequenceNumber: 3, sections: [LiveSection(index: 0, name: "open", count: 1)], objects: [object])),
      .changes(
        ChangesMessage(
          id: "s1", sequenceNumber: 4, deletedSections: [1],
          insertedSections: [LiveSection(index: 0, name: nil, count: 1)],
          deleted: [LiveRow(path: ListIndexPath(item: 0, section: 1), object: LiveObject(ref: "01"))],
          inserted: [LiveRow(path: ListIndexPath(item: 0, section: 0), object: object)],
          moved: [
            LiveMove(from: ListIndexPath(item: 1, section: 0), to: ListIndexPath(item: 0, section: 0), object: object)
          ],
          updated: [])),
      .event(EventMessage(id: "w1", sequenceNumber: 5, inserted: [object], exited: [LiveObject(ref: "02")])),
      .error(LiveError(id: nil, code: .unknownOp, message: "x")), .pong(id: "p"),
    ]
    for message in messages {
      #expect(try ServerMessage.parse(message.text) == message)
    }
    #expect(
      messages[2].text
        == #"{"v":1,"op":"event","id":"w1","seq":5,"inserted":[{"ref":"00ab","values":{"title":"a"},"changed":["title"]}],"updated":[],"entered":[],"exited":[{"ref":"02"}],"deleted":[]}"#
    )
  }

  /// A frame's text, written straight into one buffer, is byte for byte
  /// the message's JSON serialized: escapes, numbers, nulls and every op.
  @Test func textIsTheSerializedJSON() {
    let awkward = "q\"b\\s\n\r\t\u{01}\u{1F}é€😀 end"
    let values = JSONValue.object([
      ("title", .string(awkward)), ("n", .int(-9_223_372_036_854_775_808)), ("d", .double(0.1)),
      ("big", .double(1e300)), ("nan", .double(.nan)), ("flag", .bool(false)), ("none", .null),
      ("list", .array([.int(1), .object([("$date", .double(-2.5))])])),
    ])
    let object = LiveObject(ref: "00ab", values: values, changedKeys: ["title", awkward])
    let path = ListIndexPath(item: 7, section: 2)
    let messages: [ServerMessage] = [
      .snapshot(
        SnapshotMessage(
          id: awkward, sequenceNumber: 3,
          sections: [LiveSection(index: 0, name: awkward, count: 1), LiveSection(index: 1, name: nil, count: 0)],
          objects: [object, LiveObject(ref: "01")])),
      .changes(
        ChangesMessage(
          id: "s1", sequenceNumber: 4, deletedSections: [1, 3],
          insertedSections: [LiveSection(index: 0, name: nil, count: 1)],
          deleted: [LiveRow(path: path, object: LiveObject(ref: "01"))],
          inserted: [LiveRow(path: path, object: object)],
          moved: [LiveMove(from: path, to: ListIndexPath(item: 0, section: 0), object: object)],
          updated: [LiveRow(path: path, object: object)])),
      .changes(ChangesMessage(id: "s2", sequenceNumber: 0)),
      .event(
        EventMessage(
          id: "w1", sequenceNumber: 5, inserted: [object], updated: [object], entered: [object],
          exited: [LiveObject(ref: "02")], deleted: [object])),
      .error(LiveError(id: nil, code: .unknownOp, message: awkward)),
      .error(LiveError(id: "s1", code: .eventsDropped, message: "x")), .pong(id: "p"), .pong(id: nil),
      .ready(sequenceNumber: 12, session: "abc", resumed: true),
      .ready(sequenceNumber: 0, session: nil, resumed: false),
    ]
    for message in messages {
      #expect(message.text == message.json.serialized)
    }
  }

  /// Every refusal, as the client reads it; none ends the session.
  @Test func everyErrorCode() {
    let rig = LiveRig()
    let session = rig.session(
      sub: "u1", limits: LiveLimits(maximumFrameBytes: 400, maximumSubscriptions: 2, maximumPredicateBytes: 30))
    func error(_ frame: String) -> String { session.send(frame).joined(separator: "\n") }
    #expect(
      error(String(repeating: " ", count: 401))
        == #"{"v":1,"op":"error","id":null,"code":"frameTooLarge","message":"the frame has 401 bytes; the most a frame may have is 400"}"#
    )
    #expect(
      error("[1")
        == #"{"v":1,"op":"error","id":null,"code":"malformedFrame","message":"invalid JSON at byte 3: expected ',' or ']', found end of input"}"#
    )
    #expect(
      error(#"{"op":"ping","v":2}"#)
        == #"{"v":1,"op":"error","id":null,"code":"unsupportedVersion","message":"this server speaks version 1 of the protocol, not the number 2"}"#
    )
    #expect(
      error(#"{"op":"subscibe","id":"a"}"#)
        == #"{"v":1,"op":"error","id":"a","code":"unknownOp","message":"unknown op 'subscibe' (did you mean 'subscribe'?); the ops are subscribe, watch, update, unsubscribe, ping"}"#
    )
    #expect(
      error(#"{"op":"subscribe","id":"a","entity":"Task","sort":[]}"#)
        == #"{"v":1,"op":"error","id":"a","code":"invalidRequest","message":"\"sort\" needs at least one key"}"#)
    #expect(
      error(#"{"op":"subscribe","id":"a","entity":"Task","sort":[{"key":"title"}],"predicat":"x"}"#)
        == #"{"v":1,"op":"error","id":"a","code":"malformedFrame","message":"subscribe: unknown field 'predicat' (did you mean 'predicate'?)"}"#
    )
    #expect(
      error(#"{"op":"watch","id":"a","entity":"Task","predicate":"title == 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'"}"#)
        == #"{"v":1,"op":"error","id":"a","code":"predicateTooLong","message":"the predicate has 41 bytes; the most a predicate may have is 30"}"#
    )
    #expect(
      error(#"{"op":"watch","id":"a","entity":"Task","args":[{"$set":1}]}"#)
        == #"{"v":1,"op":"error","id":"a","code":"invalidArguments","message":"\"args\"[0]: \"$set\" needs an array, not the number 1"}"#
    )
    #expect(
      error(#"{"op":"watch","id":"a","entity":"Audit"}"#)
        == #"{"v":1,"op":"error","id":"a","code":"entityNotReadable","message":"there is no readable entity 'Audit'"}"#)
    #expect(
      error(#"{"op":"watch","id":"a","entity":"Nope"}"#)
        == #"{"v":1,"op":"error","id":"a","code":"entityNotReadable","message":"there is no readable entity 'Nope'"}"#)
    #expect(
      error(#"{"op":"watch","id":"a","entity":"Task","predicate":"secret == 'x'"}"#)
        == #"{"v":1,"op":"error","id":"a","code":"keyNotReadable","message":"Task has no readable key 'secret'; the readable keys are title, owner, priority, status"}"#
    )
    #expect(
      error(#"{"op":"subscribe","id":"a","entity":"Task","sort":[{"key":"secret"}]}"#).contains(
        #""code":"keyNotReadable""#))
    #expect(
      error(#"{"op":"watch","id":"a","entity":"Task","predicate":"title ==="}"#)
        == ServerMessage.error(LiveError(id: "a", code: .invalidPredicate, message: parseError("title ==="))).text)
    #expect(
      error(#"{"op":"watch","id":"a","entity":"Task","predicate":"title > 3"}"#).contains(#""code":"invalidPredicate""#)
    )
    #expect(
      error(#"{"op":"unsubscribe","id":"zz"}"#)
        == #"{"v":1,"op":"error","id":"zz","code":"unknownID","message":"no subscription or watch has the id 'zz'"}"#)
    #expect(error(#"{"op":"watch","id":"w1","entity":"Task"}"#) == "")
    #expect(
      error(#"{"op":"watch","id":"w1","entity":"Task"}"#)
        == #"{"v":1,"op":"error","id":"w1","code":"duplicateID","message":"the id 'w1' is taken by a live subscription or watch"}"#
    )
    #expect(error(#"{"op":"watch","id":"w2","entity":"Task"}"#) == "")
    #expect(
      error(#"{"op":"watch","id":"w3","entity":"Task"}"#)
        == #"{"v":1,"op":"error","id":"w3","code":"tooManySubscriptions","message":"a connection holds at most 2 subscriptions and watches; unsubscribe one first"}"#
    )
    #expect(
      error(#"{"op":"update","id":"w1","limit":3}"#)
        == #"{"v":1,"op":"error","id":"w1","code":"invalidRequest","message":"'w1' is a watch; a watch cannot be updated"}"#
    )
    #expect(error(#"{"op":"ping","id":"p"}"#) == #"{"v":1,"op":"pong","id":"p"}"#)
  }

  private func parseError(_ text: String) -> String {
    do {
      _ = try PredicateParser.parse(text)
      return ""
    } catch {
      return error.detailedDescription()
    }
  }

  @Test func policyErrorsNameEveryProblem() {
    let text =
      #"{"entities": {"Task": {"read": "ownr == $sub", "attributes": {"*": ["titel"]}}, "Nope": {"read": "TRUEPREDICATE", "attributes": {}}}}"#
    #expect(throws: ReadPolicyError.self) { try ReadPolicy.parse(text, schema: LiveFixtures.schema) }
    do {
      _ = try ReadPolicy.parse(text, schema: LiveFixtures.schema)
    } catch {
      #expect(error.messages.count == 3)
      #expect(error.messages[0] == "entities.Nope: the schema has no entity 'Nope'")
      #expect(error.messages[1] == "entities.Task.attributes.*[0]: Task has no attribute 'titel'")
      #expect(error.messages[2].hasPrefix("entities.Task.read: watch"))
    }
  }
}
