import ContextWatching
import Dispatch
import LiveQueryCore
import ObjectGraph
import PredicateDSL
import Testing

/// The example at the top of docs/live-queries.md, as written there.
func serve(context: ObjectContext, policyText: String) throws -> LiveSession {
  let policy = try ReadPolicy.parse(policyText, schema: context.schema)
  // One watcher for every session: its master filter indexes their read predicates.
  let watcher = ContextWatcher(context: context, target: .watchHandlers(on: .queue(DispatchQueue(label: "live"))))
  let session = LiveSession(context: context, watcher: watcher, policy: policy, claims: ["sub": "u1", "role": "user"])
  session.receive(#"{"op":"subscribe","id":"mine","entity":"Task","sort":[{"key":"priority"}]}"#)
  return session  // the transport sends session.outbox.drain() to the client
}

@Suite struct DocExampleTests {
  @Test func theExampleServesASnapshot() throws {
    let rig = LiveRig()
    rig.insert(title: "mine", owner: "u1", priority: 1)
    let session = try serve(context: rig.context, policyText: LiveFixtures.policyText)
    session.flush()
    let frames = session.outbox.drain()
    #expect(frames.count == 1)
    #expect(frames.first?.hasPrefix(#"{"v":1,"op":"snapshot","id":"mine","seq":1,"#) == true)
  }

  /// The error example of the page, and the code of a section key that
  /// is not the first sort key.
  @Test func theDocumentedErrors() {
    let session = LiveRig().session(sub: "u1")
    #expect(
      session.send(#"{"op":"subscribe","id":"open","entity":"Task","predicate":"title ==","sort":[{"key":"title"}]}"#)
        == [
          #"{"v":1,"op":"error","id":"open","code":"invalidPredicate","message":"error: expected expression, found end of input\n --> predicate:1:9\n  |\n1 | title ==\n  |         ^"}"#
        ])
    let refused = session.send(
      #"{"op":"subscribe","id":"s","entity":"Task","sort":[{"key":"title"}],"section":"status"}"#)
    #expect(refused.count == 1)
    #expect(refused.first?.contains(#""code":"invalidRequest""#) == true, "\(refused)")
  }
}
