import Testing

@testable import Discovery
import ParlorTestSupport

@Suite struct InMemoryDirectoryTests {
    let txt = (try? ParlorServiceInfoTests.sample.txtRecord()) ?? TXTRecord()

    @Test func guestSeesTheHostsServiceWithTXTAndAddress() async throws {
        let host = InMemoryDirectory(hostName: "hosta", addresses: [ServiceAddress(ipv4: (10, 77, 0, 1))])
        let guest = host.host(named: "hostb")
        var events = guest.browse(type: parlorServiceType).makeAsyncIterator()
        let advertisement = try await host.advertise(
            ServiceRegistration(name: "Ana's Connect Four", port: 4000, txt: txt))
        #expect(advertisement.name == "Ana's Connect Four")
        guard case .found(let service)? = await events.next() else {
            Issue.record("expected found")
            return
        }
        #expect(service.name == "Ana's Connect Four")
        #expect(service.instance.type == "_parlor._tcp.")
        #expect(service.hostTarget == "hosta.local.")
        #expect(service.port == 4000)
        #expect(service.addresses.map(\.host) == ["10.77.0.1"])
        #expect(service.txt["game"] == "connect4")
        withExtendedLifetime(advertisement) {}
    }

    @Test func browsingLateStillListsWhatIsAlreadyAdvertised() async throws {
        let directory = InMemoryDirectory()
        let first = try await directory.advertise(ServiceRegistration(name: "B game", port: 1))
        let second = try await directory.advertise(ServiceRegistration(name: "A game", port: 2))
        var events = directory.browse(type: parlorServiceType).makeAsyncIterator()
        var names: [String] = []
        for _ in 0..<2 {
            if case .found(let service)? = await events.next() { names.append(service.name) }
        }
        #expect(names == ["A game", "B game"])
        withExtendedLifetime((first, second)) {}
    }

    @Test func aClashingNameIsRenamedLikeAvahiDoes() async throws {
        let directory = InMemoryDirectory()
        let first = try await directory.advertise(ServiceRegistration(name: "Ana's game", port: 1))
        let second = try await directory.advertise(ServiceRegistration(name: "ANA'S GAME", port: 2))
        let third = try await directory.advertise(ServiceRegistration(name: "Ana's game", port: 3))
        #expect([first.name, second.name, third.name] == ["Ana's game", "ANA'S GAME #2", "Ana's game #3"])
        #expect(directory.advertisedNames == ["ANA'S GAME #2", "Ana's game", "Ana's game #3"])
    }

    @Test func updatedTXTReachesBrowsers() async throws {
        let directory = InMemoryDirectory()
        let advertisement = try await directory.advertise(ServiceRegistration(name: "Game", port: 1, txt: txt))
        var events = directory.browse(type: parlorServiceType).makeAsyncIterator()
        _ = await events.next()
        var playing = txt
        try playing.set("state", to: "playing")
        try await advertisement.update(txt: playing)
        guard case .updated(let service)? = await events.next() else {
            Issue.record("expected updated")
            return
        }
        #expect(service.txt["state"] == "playing")
    }

    @Test func withdrawingReportsLostAndLaterUpdatesFail() async throws {
        let directory = InMemoryDirectory()
        let advertisement = try await directory.advertise(ServiceRegistration(name: "Game", port: 1))
        var events = directory.browse(type: parlorServiceType).makeAsyncIterator()
        _ = await events.next()
        await advertisement.withdraw()
        #expect(await events.next() == .lost(ServiceInstance(name: "Game", type: "_parlor._tcp.", domain: "local.")))
        await #expect(throws: DiscoveryError.withdrawn(name: "Game")) {
            try await advertisement.update(txt: TXTRecord())
        }
        #expect(directory.advertisedNames.isEmpty)
        // The name is free again.
        let again = try await directory.advertise(ServiceRegistration(name: "Game", port: 1))
        #expect(again.name == "Game")
    }

    @Test func droppingTheAdvertisementWithdrawsIt() async throws {
        let directory = InMemoryDirectory()
        var advertisement: (any ServiceAdvertisement)? = try await directory.advertise(
            ServiceRegistration(name: "Game", port: 1))
        #expect(directory.advertisedNames == ["Game"])
        advertisement = nil
        #expect(advertisement == nil)
        #expect(directory.advertisedNames.isEmpty)
    }

    @Test func otherServiceTypesAreNotListed() async throws {
        let directory = InMemoryDirectory()
        let other = try await directory.advertise(ServiceRegistration(name: "Printer", type: "_ipp._tcp", port: 631))
        let game = try await directory.advertise(ServiceRegistration(name: "Game", port: 1))
        var events = directory.browse(type: parlorServiceType).makeAsyncIterator()
        guard case .found(let service)? = await events.next() else {
            Issue.record("expected found")
            return
        }
        #expect(service.name == "Game")
        withExtendedLifetime((other, game)) {}
    }

    @Test func aMissingDaemonFailsAdvertiseAndBrowseWithTheClearError() async throws {
        let directory = InMemoryDirectory()
        let error = DiscoveryError.daemonUnavailable(operation: "DNSServiceBrowse", code: -65537)
        directory.simulateFailure(error)
        await #expect(throws: error) {
            _ = try await directory.advertise(ServiceRegistration(name: "Game", port: 1))
        }
        var events = directory.browse(type: parlorServiceType).makeAsyncIterator()
        #expect(await events.next() == .failed(error))
        #expect(await events.next() == nil)
    }

    @Test func aDaemonCrashEndsRunningBrowses() async throws {
        let directory = InMemoryDirectory()
        var events = directory.browse(type: parlorServiceType).makeAsyncIterator()
        directory.failBrowsers(with: .daemonDisconnected(operation: "browsing"))
        #expect(await events.next() == .failed(.daemonDisconnected(operation: "browsing")))
        #expect(await events.next() == nil)
    }

    @Test(arguments: [
        (ServiceRegistration(name: "", port: 1), "cannot advertise: the service name is empty"),
        (
            ServiceRegistration(name: String(repeating: "x", count: 64), port: 1),
            "cannot advertise: the service name is 64 bytes; at most 63 are allowed"
        ),
        (
            ServiceRegistration(name: "Game", type: "parlor", port: 1),
            "cannot advertise: 'parlor' is not a service type like _parlor._tcp"
        ),
        (ServiceRegistration(name: "Game", port: 0), "cannot advertise: port 0 cannot be advertised"),
    ])
    func invalidRegistrationsAreRefusedWithAReason(registration: ServiceRegistration, message: String) async {
        let directory = InMemoryDirectory()
        do {
            _ = try await directory.advertise(registration)
            Issue.record("expected an error")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func alternativeNamesStayWithin63Bytes() {
        let long = String(repeating: "é", count: 31)  // 62 bytes
        let renamed = ServiceRegistration.alternativeName(for: long, attempt: 12)
        #expect(renamed.hasSuffix(" #12"))
        #expect(renamed.utf8.count <= 63)
    }
}

@Suite struct DiscoveryErrorTests {
    @Test func missingDaemonSaysWhatIsMissingHowToStartItAndTheWayAround() {
        let text = DiscoveryError.daemonUnavailable(operation: "DNSServiceBrowse", code: -65537).description
        #expect(text.contains("no avahi-daemon is running or D-Bus is unreachable"))
        #expect(text.contains("kDNSServiceErr_Unknown (-65537)"))
        #expect(text.contains("systemctl start avahi-daemon"))
        #expect(text.contains("parlor join HOST:PORT"))
    }

    @Test func serviceAddressFormatsLinkLocalWithItsInterface() throws {
        let v6 = try #require(
            ServiceAddress(bytes: [0xFE, 0x80] + Array(repeating: 0, count: 13) + [1], interfaceIndex: 1))
        #expect(v6.isLinkLocal)
        #expect(v6.host == "fe80::1%lo")
        let v4 = ServiceAddress(ipv4: (10, 77, 0, 2))
        #expect(v4.host == "10.77.0.2")
        #expect([v6, v4].sorted() == [v4, v6])
        #expect(ServiceAddress(bytes: [1, 2, 3], interfaceIndex: 0) == nil)
    }

    @Test func serviceTypesAreValidated() {
        #expect(ServiceRegistration.isValidServiceType("_parlor._tcp"))
        #expect(ServiceRegistration.isValidServiceType("_x-y._udp"))
        #expect(!ServiceRegistration.isValidServiceType("_parlor._tcp."))
        #expect(!ServiceRegistration.isValidServiceType("parlor._tcp"))
        #expect(!ServiceRegistration.isValidServiceType("_pa rlor._tcp"))
        #expect(!ServiceRegistration.isValidServiceType("_parlor"))
    }
}

@Suite struct DNSSDLibraryTests {
    @Test func aMissingLibrarySaysWhatToInstallAndTheWayAround() {
        let result = DNSSDLibrary.load(named: "libparlor-no-such-dns_sd.so.1")
        guard case .failure(let error) = result, case .libraryMissing(let name, _) = error else {
            Issue.record("expected libraryMissing, got \(result)")
            return
        }
        #expect(name == "libparlor-no-such-dns_sd.so.1")
        #expect(error.description.contains("apt-get install libavahi-compat-libdnssd1"))
        #expect(error.description.contains("parlor join HOST:PORT"))
    }
}
