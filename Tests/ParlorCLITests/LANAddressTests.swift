import Discovery
import ParlorKit
import Session
import Testing
@testable import ParlorCLI

/// Where `parlor join NAME` and `parlor resume` connect to a game DNS-SD resolved.
struct LANAddressTests {
    @Test func eachResolvedAddressIsTriedLinkLocalThroughItsInterface() throws {
        let linkLocal = try #require(ServiceAddress(bytes: [0xFE, 0x80] + Array(repeating: 0, count: 13) + [1], interfaceIndex: 3))
        let global = try #require(ServiceAddress(bytes: [0xFD, 0x00] + Array(repeating: 0, count: 13) + [2], interfaceIndex: 3))
        let service = DiscoveredService(
            instance: ServiceInstance(name: "Ana's Connect Four", type: "_parlor._tcp.", domain: "local."),
            hostTarget: "hosta.local.", port: 7490, interfaceIndex: 3, txt: TXTRecord(),
            addresses: [ServiceAddress(ipv4: (10, 77, 0, 1), interfaceIndex: 3), linkLocal, global])
        let addresses = Listing.socketAddresses(of: service)
        #expect(addresses.map(\.addressBytes) == service.addresses.map(\.bytes))
        #expect(addresses.map(\.scopeID) == [0, 3, 0], "only the link-local address needs its interface")
        #expect(addresses.allSatisfy { $0.port == 7490 })
    }
}
