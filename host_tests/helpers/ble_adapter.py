# MicroPython's `bluetooth` API on a bumble device: the firmware's BLE transport (firmware/link/ble.py)
# runs on CPython against a real BLE host stack, and a second bumble device plays the phone, both
# on bumble's in-process LocalLink (host_tests/test_ble.py).
#
# The project's own adapter, written from MicroPython's documentation of `bluetooth.BLE` (the calls
# ble.py makes: active, config, irq, gatts_register_services, gatts_set_buffer, gatts_read,
# gatts_notify, gap_advertise, gap_disconnect, gattc_exchange_mtu) and its IRQ codes. It behaves as
# the Pico W's BTstack binding does where that differs from bumble's own GATT server (found running
# MicroPython's unix port built with BTstack against bumble; docs/bluetooth.md, firmware/link/ble.py):
#   - a write longer than MTU-3 arrives as the central's prepared-write pieces, each delivered as a
#     write of its own with its offset dropped (62 bytes at MTU 23: 4 writes of at most 18 bytes);
#     bumble's server would reassemble them, so the adapter answers Prepare and Execute Write itself;
#   - a notification is cut at MTU-3;
#   - a write is cut to the size gatts_set_buffer gave the characteristic.
# The firmware's calls never wait: each one that needs the radio queues an operation that one
# asyncio task carries out in order (as BTstack queues them for its own run loop), and bumble's
# events reach the firmware's handler synchronously, as MicroPython schedules them.
#
# bumble's LocalLink delivers LE ACL data to the controller whose address matches the destination
# and labels it with the sender's random address; both devices here advertise and connect on random
# static addresses, so the connection's address is the one the link uses.
import asyncio

from bumble import att, gatt
from bumble.core import UUID as BumbleUUID
from bumble.device import Device, Peer
from bumble.hci import Address, HCI_REMOTE_USER_TERMINATED_CONNECTION_ERROR

FLAG_BROADCAST = 0x0001
FLAG_READ = 0x0002
FLAG_WRITE_NO_RESPONSE = 0x0004
FLAG_WRITE = 0x0008
FLAG_NOTIFY = 0x0010
FLAG_INDICATE = 0x0020

_IRQ_CENTRAL_CONNECT = 1
_IRQ_CENTRAL_DISCONNECT = 2
_IRQ_GATTS_WRITE = 3
_IRQ_MTU_EXCHANGED = 21


def UUID(text):  # noqa: N802 - MicroPython's name
    return BumbleUUID(text)


class Bluetooth:
    """Stands for the `bluetooth` module: BLE() returns the one radio, as on MicroPython."""

    FLAG_READ = FLAG_READ
    FLAG_WRITE = FLAG_WRITE
    FLAG_WRITE_NO_RESPONSE = FLAG_WRITE_NO_RESPONSE
    FLAG_NOTIFY = FLAG_NOTIFY
    UUID = staticmethod(UUID)

    def __init__(self, device):
        self.radio = BLE(device)

    def BLE(self):  # noqa: N802 - MicroPython's name
        return self.radio


class BLE:
    def __init__(self, device: Device):
        self.device = device
        self.handler = None
        self.is_active = False
        self.mtu = 23  # MicroPython's default preferred MTU
        self.values = {}  # value handle -> last written bytes (what gatts_read returns)
        self.buffer_size = {}  # value handle -> gatts_set_buffer size (20 by default, as MicroPython)
        self.characteristics = {}  # value handle -> bumble Characteristic
        self.connections = {}  # connection handle -> bumble Connection
        self.writes = []  # (value handle, bytes) of every write delivered to the firmware, for tests
        self.advertising = None  # (adv data, scan response) while advertising
        # Tests of refusal: the stack goes on advertising while a central is connected, whatever
        # the program asks (a second central that connected before the program's stop took effect).
        self.keep_advertising = False
        self._ops = asyncio.Queue()
        self._busy = 0
        self._worker = asyncio.get_running_loop().create_task(self._work())
        device.on(device.EVENT_CONNECTION, self._on_connection)
        server = device.gatt_server
        # BTstack's binding: the pieces of a long write reach the program one by one.
        server.on_att_prepare_write_request = self._on_prepare_write
        server.on_att_execute_write_request = self._on_execute_write

    # ------------------------------------------------------------------ MicroPython's API

    def active(self, on=None):
        if on is None:
            return self.is_active
        self.is_active = bool(on)
        if not on:
            self._op(self._stop_advertising)
        return self.is_active

    def config(self, *names, **settings):
        if names:
            if names[0] == "mtu":
                return self.mtu
            raise ValueError("unknown config param")
        for key, value in settings.items():
            if key == "mtu":
                self.mtu = value
                self.device.gatt_server.max_mtu = value
            elif key == "gap_name":
                self.device.name = value
            else:
                raise ValueError("unknown config param")

    def irq(self, handler):
        self.handler = handler

    def gatts_register_services(self, table):
        result = []
        services = []
        for uuid, chars in table:
            made = []
            for char_uuid, flags in chars:
                props = 0
                if flags & FLAG_READ:
                    props |= gatt.Characteristic.Properties.READ
                if flags & FLAG_WRITE:
                    props |= gatt.Characteristic.Properties.WRITE
                if flags & FLAG_WRITE_NO_RESPONSE:
                    props |= gatt.Characteristic.Properties.WRITE_WITHOUT_RESPONSE
                if flags & FLAG_NOTIFY:
                    props |= gatt.Characteristic.Properties.NOTIFY
                slot = [None]  # the value handle, known once the service is added
                char = gatt.Characteristic(
                    char_uuid,
                    props,
                    gatt.Characteristic.Permissions.READABLE | gatt.Characteristic.Permissions.WRITEABLE,
                    gatt.CharacteristicValue(write=self._writer(slot)),
                )
                made.append((char, slot))
            services.append((gatt.Service(uuid, [c for c, _ in made]), made))
        for service, made in services:
            self.device.add_service(service)
            handles = []
            for char, slot in made:
                slot[0] = char.handle
                self.characteristics[char.handle] = char
                self.values[char.handle] = b""
                self.buffer_size[char.handle] = 20
                handles.append(char.handle)
            result.append(tuple(handles))
        return tuple(result)

    def gatts_set_buffer(self, handle, size, append=False):
        self.buffer_size[handle] = size

    def gatts_read(self, handle):
        return self.values[handle]

    def gatts_notify(self, conn, handle, data=None):
        connection = self.connections.get(conn)
        if connection is None:
            raise OSError(107, "ENOTCONN")
        value = bytes(data)[: connection.att_mtu - 3]  # cut at MTU-3, as BTstack does
        self._op(self._notify, connection, self.characteristics[handle], value)

    def gap_advertise(self, interval_us, adv_data=None, resp_data=None, connectable=True):
        if interval_us is None:
            if self.keep_advertising and self.connections:
                return  # the race the tests of refusal stage: a stop that comes too late
            self.advertising = None
            self._op(self._stop_advertising)
            return
        self.advertising = (bytes(adv_data or b""), bytes(resp_data or b""), interval_us / 1000)
        self._op(self._start_advertising, self.advertising)

    def gap_disconnect(self, conn):
        connection = self.connections.get(conn)
        if connection is None:
            return False
        self._op(self._disconnect, connection)
        return True

    def gattc_exchange_mtu(self, conn):
        connection = self.connections.get(conn)
        if connection is None:
            raise OSError(107, "ENOTCONN")
        self._op(self._exchange_mtu, connection)

    # ------------------------------------------------------------------ for the tests

    def stop(self):
        """The worker task ends (before the test's loop closes)."""
        self._worker.cancel()

    @property
    def idle(self):
        return self._ops.empty() and not self._busy

    # ------------------------------------------------------------------ bumble's side

    def _irq(self, event, data):
        if self.handler is not None:
            self.handler(event, data)

    def _deliver(self, connection, handle, value):
        value = bytes(value)[: self.buffer_size.get(handle, 20)]
        self.values[handle] = value
        self.writes.append((handle, value))
        self._irq(_IRQ_GATTS_WRITE, (connection.handle, handle))

    def _writer(self, slot):
        def write(connection, value):
            self._deliver(connection, slot[0], value)

        return write

    def _on_connection(self, connection):
        self.connections[connection.handle] = connection
        addr = connection.peer_address
        connection.on(connection.EVENT_DISCONNECTION, lambda reason: self._on_disconnection(connection))
        connection.on(
            connection.EVENT_CONNECTION_ATT_MTU_UPDATE,
            lambda: self._irq(_IRQ_MTU_EXCHANGED, (connection.handle, connection.att_mtu)),
        )
        self._irq(_IRQ_CENTRAL_CONNECT, (connection.handle, addr.address_type, bytes(addr.address_bytes)))
        if self.keep_advertising and self.advertising is not None:
            self._op(self._start_advertising, self.advertising)

    def _on_disconnection(self, connection):
        self.connections.pop(connection.handle, None)
        addr = connection.peer_address
        self._irq(_IRQ_CENTRAL_DISCONNECT, (connection.handle, addr.address_type, bytes(addr.address_bytes)))

    def _on_prepare_write(self, bearer, request):
        connection = bearer  # the fixed ATT channel: bumble's bearer is the connection
        self.device.gatt_server.send_response(
            bearer,
            att.ATT_Prepare_Write_Response(
                attribute_handle=request.attribute_handle,
                value_offset=request.value_offset,
                part_attribute_value=request.part_attribute_value,
            ),
        )
        self._deliver(connection, request.attribute_handle, request.part_attribute_value)

    def _on_execute_write(self, bearer, request):
        self.device.gatt_server.send_response(bearer, att.ATT_Execute_Write_Response())

    # ------------------------------------------------------------------ the operations, in order

    def _op(self, fn, *args):
        self._ops.put_nowait((fn, args))

    async def _work(self):
        while True:
            fn, args = await self._ops.get()
            self._busy += 1
            try:
                await fn(*args)
            except Exception:  # noqa: BLE001 - a lost link during an operation: as a stack drops it
                pass
            finally:
                self._busy -= 1

    async def _start_advertising(self, data):
        if self.device.is_advertising:
            await self.device.stop_advertising()
        await self.device.start_advertising(
            advertising_data=data[0],
            scan_response_data=data[1],
            advertising_interval_min=data[2],
            advertising_interval_max=data[2],
        )

    async def _stop_advertising(self):
        if self.device.is_advertising:
            await self.device.stop_advertising()

    async def _notify(self, connection, characteristic, value):
        await self.device.notify_subscriber(connection, characteristic, value)

    async def _disconnect(self, connection):
        await connection.disconnect(HCI_REMOTE_USER_TERMINATED_CONNECTION_ERROR)

    async def _exchange_mtu(self, connection):
        await Peer(connection).request_mtu(self.mtu)


def random_address(n):
    """A random static address (the two top bits set), distinct for each n."""
    return Address("C0:00:00:00:00:%02X" % n)
