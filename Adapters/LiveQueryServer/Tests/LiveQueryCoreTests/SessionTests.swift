import ContextWatching
import LiveQueryCore
import ObjectGraph
import PredicateDSL
import Testing

/// A session's frames for simple stories, exactly.
@Suite struct SessionTests {
  private func ref(_ id: ObjectID) -> String { LiveFixtures.refs.ref(for: id) }

  @Test func subscriptionFollowsItsRowsAndAnOwnerChangeExits() {
    let rig = LiveRig()
    let mine = rig.insert(title: "mine", owner: "u1", priority: 2, secret: "s")
    rig.insert(title: "theirs", owner: "u2", priority: 1)
    let session = rig.session(sub: "u1")
    let subscribe = #"{"op":"subscribe","id":"s1","entity":"Task","sort":[{"key":"priority"}]}"#
    #expect(
      session.send(subscribe) == [
        #"{"v":1,"op":"snapshot","id":"s1","seq":2,"sections":[{"index":0,"name":null,"count":1}],"objects":[{"ref":"\#(ref(mine))","values":{"title":"mine","owner":"u1","priority":2,"status":"open"}}]}"#
      ])
    rig.change(mine, "priority", .int(5))
    session.flush()
    #expect(
      session.outbox.drain() == [
        #"{"v":1,"op":"changes","id":"s1","seq":3,"deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[],"moved":[],"updated":[{"path":[0,0],"ref":"\#(ref(mine))","values":{"title":"mine","owner":"u1","priority":5,"status":"open"},"changed":["priority"]}]}"#
      ])
    rig.change(mine, "secret", .string("hidden change"))
    session.flush()
    #expect(session.outbox.drain() == [], "a change of an unreadable key tells nothing")
    let theirs2 = rig.insert(title: "theirs too", owner: "u2", priority: 0)
    rig.change(theirs2, "priority", .int(9))
    session.flush()
    #expect(session.outbox.drain() == [], "rows of others are never sent")
    rig.change(mine, "owner", .string("u2"))
    session.flush()
    #expect(
      session.outbox.drain() == [
        #"{"v":1,"op":"changes","id":"s1","seq":7,"deletedSections":[],"insertedSections":[],"deleted":[{"path":[0,0],"ref":"\#(ref(mine))"}],"inserted":[],"moved":[],"updated":[]}"#
      ])
  }

  @Test func adminReadsEveryRowAndTheSecret() {
    let rig = LiveRig()
    let theirs = rig.insert(title: "theirs", owner: "u2", priority: 1, secret: "s")
    let session = rig.session(sub: "a", role: "admin")
    #expect(
      session.send(#"{"op":"subscribe","id":"s1","entity":"Task","sort":[{"key":"priority"}]}"#) == [
        #"{"v":1,"op":"snapshot","id":"s1","seq":1,"sections":[{"index":0,"name":null,"count":1}],"objects":[{"ref":"\#(ref(theirs))","values":{"title":"theirs","owner":"u2","priority":1,"status":"open","secret":"s"}}]}"#
      ])
  }

  @Test func watchReportsEventsAndExitsWithRefsAlone() {
    let rig = LiveRig()
    let session = rig.session(sub: "u1")
    #expect(session.send(#"{"op":"watch","id":"w1","entity":"Task","predicate":"priority > 1"}"#) == [])
    let task = rig.insert(title: "t", owner: "u1", priority: 2)
    session.flush()
    #expect(
      session.outbox.drain() == [
        #"{"v":1,"op":"event","id":"w1","seq":1,"inserted":[{"ref":"\#(ref(task))","values":{"title":"t","owner":"u1","priority":2,"status":"open"}}],"updated":[],"entered":[],"exited":[],"deleted":[]}"#
      ])
    rig.change(task, "owner", .string("u2"))
    session.flush()
    #expect(
      session.outbox.drain() == [
        #"{"v":1,"op":"event","id":"w1","seq":2,"inserted":[],"updated":[],"entered":[],"exited":[{"ref":"\#(ref(task))"}],"deleted":[]}"#
      ])
    rig.change(task, "priority", .int(3))
    session.flush()
    #expect(session.outbox.drain() == [])
    #expect(session.send(#"{"op":"unsubscribe","id":"w1"}"#) == [])
    rig.insert(title: "after", owner: "u1", priority: 4)
    session.flush()
    #expect(session.outbox.drain() == [])
  }

  @Test func updateIsAnsweredByOneChanges() {
    let rig = LiveRig()
    let low = rig.insert(title: "low", owner: "u1", priority: 1)
    let high = rig.insert(title: "high", owner: "u1", priority: 5)
    let session = rig.session(sub: "u1")
    _ = session.send(#"{"op":"subscribe","id":"s1","entity":"Task","sort":[{"key":"priority"}]}"#)
    #expect(
      session.send(#"{"op":"update","id":"s1","predicate":"priority > %@","args":[2]}"#) == [
        #"{"v":1,"op":"changes","id":"s1","seq":2,"deletedSections":[],"insertedSections":[],"deleted":[{"path":[0,0],"ref":"\#(ref(low))"}],"inserted":[],"moved":[],"updated":[]}"#
      ])
    #expect(
      session.send(#"{"op":"update","id":"s1","args":[3]}"#) == [
        #"{"v":1,"op":"changes","id":"s1","seq":2,"deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[],"moved":[],"updated":[]}"#
      ], "equal lists: one empty changes")
    #expect(
      session.send(
        #"{"op":"update","id":"s1","predicate":"TRUEPREDICATE","sort":[{"key":"priority","ascending":false}]}"#) == [
          #"{"v":1,"op":"changes","id":"s1","seq":2,"deletedSections":[],"insertedSections":[],"deleted":[],"inserted":[{"path":[0,1],"ref":"\#(ref(low))","values":{"title":"low","owner":"u1","priority":1,"status":"open"}}],"moved":[],"updated":[]}"#
        ])
    _ = high
  }
}
