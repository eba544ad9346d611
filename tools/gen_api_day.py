#!/usr/bin/env python3
"""Generates resources/traffic/api-day.log.gz: one day of a small API as an nginx `combined` log.

Deterministic (seeded): running it again gives the same bytes. The day holds, by construction
(tests/tst_cli_replay.cpp checks the figures the preset "Pick a limit for this API" teaches):

- 2500 ordinary users, each its own address, 1 to 3 sessions in distinct hours, a session at most
  40 requests (page loads of 3-8 requests in one second, then pauses): never more than 40
  requests in any hour (a session starts in the hour's first 20 minutes and sends nothing after
  its first 30), so never more than 60 in a minute;
- 3 scrapers (203.0.113.21-23), each 2 requests every second for 2 hours;
- an office of 120 people behind one NAT address (203.0.113.10): each loads the dashboard
  (8 requests in one second) at 09:00 and again through the working day;
- a login brute force from 198.51.100.66: POST /api/login 4 times every second for 900 s from
  03:00:00 (3600 requests, all 401);
- the first line at 00:00:00 (so minute windows fall on whole minutes from it).

Usage: tools/gen_api_day.py OUT.log.gz
"""
import gzip
import random
import sys

DAY = "23/Nov/2026"
rng = random.Random(22)
lines = []  # (second of the day, order, text)

PAGES = ["/", "/app", "/app/dashboard", "/app/settings"]
API = ["/api/items", "/api/items/17", "/api/user", "/api/search?q=x", "/api/orders", "/api/feed"]
UAS = ["Mozilla/5.0 (Windows NT 10.0) Firefox/133.0", "Mozilla/5.0 (Macintosh) Safari/605.1",
       "Mozilla/5.0 (X11; Linux) Chrome/131.0", "okhttp/4.12.0"]


def stamp(second):
    h, rest = divmod(second, 3600)
    m, s = divmod(rest, 60)
    return f"{DAY}:{h:02d}:{m:02d}:{s:02d} +0000"


def add(second, ip, method, path, status, ua):
    size = 200 + (len(path) * 37 + status) % 900
    lines.append((second, len(lines),
                  f'{ip} - - [{stamp(second)}] "{method} {path} HTTP/1.1" {status} {size} "-" "{ua}"'))


def address(used):
    while True:
        if rng.random() < 0.1:
            ip = "2001:db8:%x:%x::%x" % (rng.randrange(1, 0xffff), rng.randrange(1, 0xffff), rng.randrange(1, 0xffff))
        else:
            ip = "%d.%d.%d.%d" % (rng.randrange(11, 190), rng.randrange(256), rng.randrange(256), rng.randrange(1, 255))
        if ip not in used and not ip.startswith(("198.51.100.", "203.0.113.")):
            used.add(ip)
            return ip


def session(ip, start, ua, limit=40):
    t, sent = start, 0
    first = True
    while sent < limit:
        burst = min(rng.randrange(3, 9), limit - sent)
        page = "/api/login" if first and rng.random() < 0.3 else rng.choice(PAGES)
        add(t, ip, "POST" if page == "/api/login" else "GET", page, 200, ua)
        for _ in range(burst - 1):
            add(t, ip, "GET", rng.choice(API), 200, ua)
        sent += burst
        first = False
        t += rng.randrange(5, 120)
        if rng.random() < 0.25 or t > start + 1800:  # a session ends within its hour
            break
    return t


used = set()
add(0, "192.0.2.1", "GET", "/", 200, UAS[0])  # the day's first request, at 00:00:00
used.add("192.0.2.1")
# Ordinary users: sessions in distinct hours, weighted to the day.
hours = [h for h in range(24) for _ in range(1 if h < 7 or h > 21 else 4)]
for _ in range(2500):
    ip = address(used)
    ua = rng.choice(UAS)
    for hour in sorted(set(rng.choice(hours) for _ in range(rng.randrange(1, 4)))):
        session(ip, hour * 3600 + rng.randrange(0, 1200), ua)
# Scrapers: two requests every second for two hours each.
for k, start in enumerate([1 * 3600, 11 * 3600, 20 * 3600]):
    ip = f"203.0.113.{21 + k}"
    for s in range(start, start + 7200):
        for _ in range(2):
            add(s, ip, "GET", "/api/items?page=%d" % (s - start), 200, "python-requests/2.32")
# The office: 120 people behind one address; everyone opens the dashboard at 09:00.
office = "203.0.113.10"
for person in range(120):
    ua = UAS[person % 3]
    t = 9 * 3600 + person % 60
    for _ in range(8):
        add(t, office, "GET", rng.choice(API), 200, ua)
    for _ in range(rng.randrange(2, 5)):
        t = rng.randrange(9 * 3600 + 600, 17 * 3600)
        for _ in range(rng.randrange(3, 9)):
            add(t, office, "GET", rng.choice(API + PAGES), 200, ua)
# The brute force on /api/login.
for s in range(3 * 3600, 3 * 3600 + 900):
    for _ in range(4):
        add(s, "198.51.100.66", "POST", "/api/login", 401, "python-requests/2.32")

lines.sort()
with open(sys.argv[1], "wb") as raw:
    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0, filename="") as out:
        for _, _, text in lines:
            out.write((text + "\n").encode())
print(f"{len(lines)} lines, {len(used)} ordinary addresses", file=sys.stderr)
