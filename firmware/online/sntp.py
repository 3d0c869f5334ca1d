# The time of day from the network (SNTP, RFC 4330), so mbedTLS can check a certificate's validity
# dates: a Pico's real-time clock starts at 2021-01-01 after every power-up, and a certificate
# issued after that "is not yet valid". One UDP question, one answer; no third-party module.
import struct
import time

NTP_PORT = 123
NTP_TO_UNIX_S = 2208988800  # 1900-01-01 to 1970-01-01
SERVERS = ("pool.ntp.org", "time.google.com")


def query(socket, host, timeout_s=3, port=NTP_PORT):
    """Seconds since 1970 (UTC) from an SNTP server; OSError when it does not answer."""
    addr = socket.getaddrinfo(host, port)[0][-1]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.settimeout(timeout_s)
        packet = bytearray(48)
        packet[0] = 0x1B  # leap 0, version 3, mode 3 (client)
        s.sendto(packet, addr)
        answer = s.recv(48)
    finally:
        s.close()
    if len(answer) < 48 or answer[0] & 7 != 4:
        raise OSError("not an SNTP server's answer")
    return struct.unpack("!I", answer[40:44])[0] - NTP_TO_UNIX_S


def set_clock(socket, set_rtc, servers=SERVERS, port=NTP_PORT, timeout_s=3):
    """Ask the servers in turn; set_rtc(time.gmtime tuple as machine.RTC().datetime takes it).
    Returns the seconds since 1970, or None when none answered (the board says so: TLS then
    fails on validity dates, with that reason)."""
    for host in servers:
        try:
            unix = query(socket, host, timeout_s, port)
        except OSError:
            continue
        epoch_shift = 946684800 if time.gmtime(0)[0] == 2000 else 0  # ports whose epoch is 2000
        t = time.gmtime(unix - epoch_shift)
        # machine.RTC().datetime: (year, month, day, weekday, hours, minutes, seconds, subseconds)
        set_rtc((t[0], t[1], t[2], t[6], t[3], t[4], t[5], 0))
        return unix
    return None
