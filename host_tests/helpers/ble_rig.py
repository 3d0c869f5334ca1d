# A board with its BLE link (firmware/link/ble.py on host_tests/helpers/ble_adapter.py) and phones (bumble
# centrals), all on one bumble LocalLink in one asyncio loop that the synchronous tests turn.
#
# BleRig extends test_link.Rig (the board on fakes with its USB link): every 5 ms scan also polls the
# BLE link, then lets the radio traffic that poll started run to its end. A Phone is a central as the
# apps are: it scans for a service UUID, connects, raises the MTU or not, discovers, subscribes and
# writes with response (bumble's client sends a write longer than MTU-3 as prepared writes).
import asyncio

from bumble.controller import Controller
from bumble.core import AdvertisingData, UUID
from bumble.device import Device, Peer
from bumble.host import Host
from bumble.link import LocalLink

from ble_adapter import Bluetooth, random_address
from link.ble import (
    CHESSLINK_NOTIFY,
    CHESSLINK_WRITE,
    CPP_RX,
    CPP_SERVICE,
    CPP_TX,
    BleLink,
)
from test_link import Rig


def _device(link, name, n):
    controller = Controller(name, link=link)
    return Device(name=name, address=random_address(n), host=Host(controller, controller))


class BleRig(Rig):
    def __init__(self, services="both", **kw):
        super().__init__(**kw)
        self.loop = asyncio.new_event_loop()
        self.air = LocalLink()
        self.console = []  # what the BLE link told the USB console
        self.phones = []
        self.others = []  # radios of boards made by radio_of_another_board
        self.call(self._construct(services))
        self.settle()

    async def _construct(self, services):
        # Made in the loop: bumble's controller and the adapter's worker task run on it.
        self.device = _device(self.air, "board", 1)
        await self.device.power_on()
        self.bluetooth = Bluetooth(self.device)
        self.radio = self.bluetooth.radio
        self.ble = BleLink(self.bluetooth, self.app, services, self.console.append)
        self.app.ble = self.ble  # as main.py wires it: the USB `ble` command finds it there

    # -- the loop --------------------------------------------------------------------------------

    def call(self, coro, timeout=5.0):
        return self.loop.run_until_complete(asyncio.wait_for(coro, timeout))

    def settle(self):
        """Run the loop until the radio has carried out what was asked and the packets landed."""

        async def turns():
            quiet = 0
            while quiet < 40:
                await asyncio.sleep(0)
                quiet = quiet + 1 if self.radio.idle else 0

        self.loop.run_until_complete(turns())

    def run(self, ms=300):
        for _ in range(ms // 5):
            self.t += 5
            self.vm.now_ms = self.t
            self.app.step(self.t)
            self.link.poll(self.t)
            if self.app.ble is not None:
                self.app.ble.poll(self.t)
            self.settle()

    def poll(self):
        """The BLE link's turn without a scan (what it answers to what just arrived)."""
        self.settle()
        if self.app.ble is not None:
            self.app.ble.poll(self.t)
        self.settle()

    def radio_of_another_board(self, n=2):
        """MicroPython's `bluetooth` for one more board on the same air (main.py's wiring tests)."""

        async def make():
            device = _device(self.air, "board%d" % n, n)
            await device.power_on()
            return Bluetooth(device)

        bluetooth = self.call(make())
        self.others.append(bluetooth.radio)
        return bluetooth

    def phone(self, mtu=517, n=None):
        p = Phone(self, mtu, n if n is not None else 10 + len(self.phones))
        self.phones.append(p)
        return p

    def close(self):
        for p in self.phones:
            if p.connection is not None:
                try:
                    self.call(p.connection.disconnect(), timeout=1)
                except Exception:  # noqa: BLE001 - already gone
                    pass
        self.radio.stop()
        for radio in self.others:
            radio.stop()
        self.settle()
        self.loop.close()


class Phone:
    """A central on the same link. mtu: the largest its stack accepts (23 for an old phone)."""

    def __init__(self, rig, mtu, n):
        self.rig = rig

        async def make():
            device = _device(rig.air, "phone%d" % n, n)
            await device.power_on()
            return device

        self.device = rig.call(make())
        self.device.gatt_server.max_mtu = mtu  # what it answers to the board's MTU request
        self.connection = None
        self.peer = None
        self.received = []  # notifications, in order: (characteristic name, bytes)
        self.sinks = {}  # characteristic name -> callable(bytes) taking its notifications instead
        self.disconnected = False

    # -- finding the board -----------------------------------------------------------------------

    def scan(self, service_uuid, timeout=1.0):
        """The advertisement of the first device that advertises `service_uuid`, or None."""
        want = UUID(service_uuid)

        def match(adv):
            uuids = adv.data.get_all(AdvertisingData.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS)
            return want in [u for item in uuids for u in (item if isinstance(item, list) else [item])]

        return self._scan(match, timeout)

    def scan_name(self, part, timeout=1.0):
        """The advertisement of the first device whose name contains `part`, or None."""

        def match(adv):
            name = adv.data.get(AdvertisingData.COMPLETE_LOCAL_NAME)
            return name is not None and part in (name if isinstance(name, str) else name.decode())

        return self._scan(match, timeout)

    def _scan(self, match, timeout):
        found = self.rig.loop.create_future()

        def seen(adv):
            if match(adv) and not found.done():
                found.set_result(adv)

        async def go():
            self.device.on(self.device.EVENT_ADVERTISEMENT, seen)
            await self.device.start_scanning(filter_duplicates=True)
            try:
                return await asyncio.wait_for(found, timeout)
            except asyncio.TimeoutError:
                return None
            finally:
                self.device.remove_listener(self.device.EVENT_ADVERTISEMENT, seen)
                await self.device.stop_scanning()

        return self.rig.call(go(), timeout + 1)

    def connect(self, address=None, raise_mtu=None, service=CPP_SERVICE, timeout=2.0):
        """Connect to `address` (scan for `service` when None), raise the MTU to `raise_mtu`
        (None: leave it to the board), discover and subscribe to the board's notifications."""
        if address is None:
            adv = self.scan(service)
            assert adv is not None, "the board does not advertise %s" % service
            address = adv.address
        self.disconnected = False

        async def go():
            connection = await self.device.connect(address, timeout=timeout)
            connection.on(connection.EVENT_DISCONNECTION, self._gone)
            self.connection = connection
            peer = Peer(connection)
            self.peer = peer
            if raise_mtu:
                await peer.request_mtu(raise_mtu)
            await peer.discover_services()
            for svc in peer.services:
                await svc.discover_characteristics()
            self.chars = {}
            for uuid, name in ((CPP_TX, "cpp"), (CPP_RX, "cpp_rx"), (CHESSLINK_NOTIFY, "chesslink"),
                               (CHESSLINK_WRITE, "chesslink_rx")):
                found = peer.get_characteristics_by_uuid(UUID(uuid))
                if found:
                    self.chars[name] = found[0]
            for name in ("cpp", "chesslink"):
                if name in self.chars:
                    await peer.subscribe(self.chars[name], self._receiver(name))

        self.rig.call(go(), timeout + 3)
        self.rig.poll()  # the board takes the connection (and asks for its MTU)
        self.rig.poll()

    def _receiver(self, name):
        def got(value):
            sink = self.sinks.get(name)
            if sink is not None:
                sink(bytes(value))  # a host program reading this characteristic itself
            else:
                self.received.append((name, bytes(value)))

        return got

    def _gone(self, reason):
        self.disconnected = True
        self.connection = None

    @property
    def mtu(self):
        return self.connection.att_mtu

    # -- talking ---------------------------------------------------------------------------------

    def write(self, data, name="cpp_rx", poll=True):
        """A write with response (bumble sends prepared writes for one longer than MTU-3)."""
        if isinstance(data, str):
            data = data.encode()
        self.rig.call(self.peer.write_value(self.chars[name], data, with_response=True))
        if poll:
            self.rig.poll()

    def take(self, name="cpp"):
        """The notifications of characteristic `name` received since the last take."""
        got = [v for n, v in self.received if n == name]
        self.received = [(n, v) for n, v in self.received if n != name]
        return got

    def disconnect(self):
        self.rig.call(self.connection.disconnect())
        self.rig.poll()


class BleCentralRig:
    """What test_cpp.Central needs of a rig, over a phone's CPP characteristics: send(text) writes
    each line as one command, lines() returns the notifications as lines."""

    def __init__(self, rig, phone):
        self.rig = rig
        self.phone = phone

    def send(self, text):
        for line in text.split("\n"):
            if line:
                self.phone.write(line)
                # A held piece (MTU 23, a command of exactly MTU-5 bytes) goes on after HOLD_MS.
                while self.rig.ble.holding:
                    self.rig.run(5)

    def lines(self):
        return [v.decode() for v in self.phone.take("cpp")]

    def run(self, ms):
        self.rig.run(ms)

    def __getattr__(self, name):
        return getattr(self.rig, name)


class BleTransport:
    """A phone's ChessLink characteristics as the transport of a host program: write(bytes) writes
    with response, attach(sink) hands it every notification (host_tests/chesslink_client.Host)."""

    def __init__(self, phone):
        self.phone = phone

    def attach(self, sink):
        self.phone.sinks["chesslink"] = sink

    def write(self, data):
        self.phone.write(data, name="chesslink_rx")
