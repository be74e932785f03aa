#!/usr/bin/env python3
"""Regenerates surt_vectors.jsonl: tricky URLs and the keys pywb 2.10 gives them.

Needs `pip install surt==0.3.1` (the version pywb 2.10 pins). The `canonicalize`
below is pywb.utils.canonicalize.canonicalize/unsurt, copied so pywb itself is
not needed. Output is deterministic (fixed seed). Run:
    python3 gen_surt_vectors.py > surt_vectors.jsonl
"""
import json
import random

import surt


def canonicalize(url, surt_ordered=True):
    try:
        key = surt.surt(url)
    except Exception:
        if url.startswith('urn:'):
            return url
        return None  # pywb raises UrlCanonicalizeException('Invalid Url: ...')
    return key if surt_ordered else unsurt(key)


def unsurt(key):
    try:
        index = key.index(')/')
    except ValueError:
        return key
    parts = key[0:index].split(',')
    parts.reverse()
    return '.'.join(parts) + key[index + 1:]


SCHEMES = ['http://', 'https://', 'HTTP://', 'Https://', 'ftp://', '', 'http:', 'http:///',
           'http:////', 'dns:', 'urn:', 'mailto:', 'http://http://', 'https://http://',
           'x-y+z.a://', '1http://', 'http://https://http://', 'ht\ttp://', 'javascript:']
USERINFO = ['', 'user@', 'User:Pass@', 'a@b@', '@', ':@']
HOSTS = ['example.com', 'www.example.com', 'WWW.Example.COM', 'www2.www.example.com', 'www.',
         'www', 'wwwfoo.com', 'www12.x.org', '127.0.0.1', '1.2.3', '010.0.0.1', '0x7f.0.0.1',
         '017700000001', '4294967297', '999.1.1.1', '1.2.3.4.5', '0.0.0.0', '00', '0.0.0.0777',
         '1.08.0.1', '[::1]', '[2001:DB8::1]', 'a[b]c', 'a..b.com', '.example.com.', '...',
         '%65xample.com', 'ex%2Eample.com', 'f\u00fcr.de', 'F\u00dcR.de', 'xn--fr-xka.de',
         '\u4f8b\u3048.jp', '\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444',
         'stra\u00dfe.de', '\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.com', 'a\u3002b.com',
         'b%E4r.de', '%C3%BC.de', 'exa mple.com', 'foo_bar.com', 'a' * 70 + '.com',
         '\u00e9' * 70 + '.com', '-foo.com', 'foo.com.', '', 'foo.com:bar', '%31.2.3.4',
         '1.2.3.4%0A', 'caf\u00e9..com', '\u05d0\u05d1.il', 'a\u00adb.com', 'xn--\u00e9.com',
         'x\u00a0y.com', '%25%34%31.com', 'EXAMPLE.%43OM', 'a\u2060b.com', 'a\u200bb.com',
         'a\ufe0fb.com', '\u0627\u0628.com', '\u0627b\u0628.com', 'a\u0627.com', 'x\u3000y.com',
         '\u00c0\u00c1.com', '\u0391\u03a3.gr', '\u03c3\u03c2.gr', 'a\ue000.com',
         '1.256.3.4', '256.1.1.1', '1.2.65535', '1.2.65536', '1.16777215', '1.16777216',
         '0377.0377.0377.0377', '0400.1.1.1', '00.0.0.0', '0.0.0.09', '4294967295',
         '4294967296', '08', '1.2.3.4.', '.1.2.3', '1..2', '01.02.03.04', '1.2.3.04',
         '1.2.3.08', '09.1.1.1', '11111111111111111111', '00000', '1.2.3.4 ',
         '%31%2e2.3.4', '1\u30022.3.4', 'www.1.2.3.4', 'www1.2.3.4', 'WWW123.example.com',
         'www-1.example.com', 'www1.', 'wwwa.b']
# Every Latin-1 character (reachable through the Latin-1 fallback) and the
# Greek/Latin letters whose IDNA folding is not plain lowercasing.
HOSTS += ['x%sy.com' % chr(i) for i in range(0xa0, 0x100)]
HOSTS += ['%s.gr' % c for c in '\u0132\u013f\u0149\u017f\u01c4\u01c5\u01c8\u01cb\u01f2'
                                '\u03c2\u03d0\u03d1\u03d2\u03d5\u03d6\u03f0\u03f1\u03f2\u03f5\u03f9\u1e9e']
PORTS = ['', ':80', ':443', ':8080', ':0', ':', '::', ':080', ':65535', ':65536', ':x',
         ':99999999', ':21', ': 80']
PATHS = ['', '/', '/a/b/', '/A/B.HTML', '/a/./b/../c', '/../a', '/a//b///c/', '//a',
         '/%7Euser', '/%41%42', '/a%2fb', '/a%252fb', '/a b', '/caf\u00e9', '/%C3%A9', '/%e9',
         '/a%23b', '/%', '/%%41', '/%4', '/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx',
         '/(4hqa0555fwsecu455xqckv45)/x/y.aspx', '/x/(4HQA0555FWSECU455XQCKV45)/Y.ASPX?q=1',
         '/a/(A(abcdefghijklmnopqrstuvwx)S(4hqa0555fwsecu455xqckv45))/p.aspx',
         '/(S(4hqa0555fwsecu455xqckv45))/x.aspx/(S(4hqa0555fwsecu455xqckv45))/y.aspx',
         '/(S(4hqa0555fwsecu455xqckv45))/.aspx', '/(S(4hqa0555fwsecu455xqckv45))/a?.aspx',
         '/a\\b', '/a"b<c>{d}|e^f`g', '/\x01\x7f\x1f', '/.', '/..', '/a/..', '/./', '/%2e%2e/a',
         '/a;b=c', '/a/b/c/../../..', '/a/b/../../../../c', '/index.html?', '/~x/\u65e5\u672c',
         '/%F0%9F%98%80', '/\U0001F600', '/a%0Ab', '/a%09b', '/a%20', '/%2F', '/%5C']
QUERIES = ['', '?', '?a=1', '?b=2&a=1&A=3', '?&a=1', '?a=1&', '?a&a=&a=1', '?a=2&a=1&a',
           '?jsessionid=0123456789abcdefghijklemopqrstuv',
           '?x=1&JSESSIONID=0123456789ABCDEFGHIJKLEMOPQRSTUV&y=2',
           '?phpsessid=0123456789abcdefghijklemopqrstuv&z',
           '?sid=0123456789abcdefghijklemopqrstuv', '?xsid=0123456789abcdefghijklemopqrstuvw',
           '?ASPSESSIONIDAAAAAAAA=BBBBBBBBBBBBBBBBBBBBBBBB&x=1', '?CFID=1&CFTOKEN=2',
           '?a=cfid=1&cftoken=2&b', '?cfid=1&cftoken=2&cfid=3&cftoken=4&z=1', '?q=%20%2B+',
           '?q=caf\u00e9', '?a=%26b', '?%3D=1', '?=', '?&', '?&&', '?a=%', '?A=%41%2541',
           '?a=1?b=2', '?b=\x00c', '?a b=c d', '?z&y&x', '?sid=0123456789abcdefghijklemopqrstuv&',
           '?jsessionid=0123456789abcdefghijklemopqrstuv&jsessionid=0123456789abcdefghijklemopqrstuv']
FRAGMENTS = ['', '#', '#frag', '#a?b', '#%41']
WRAPS = [('', ''), (' ', ''), ('', ' '), ('\t', '\n'), ('\r\n', ''), ('\x0b', '\x0c'),
         ('  ', '\t ')]


def url(scheme='http://', user='', host='example.com', port='', path='/p', query='',
        frag='', wrap=('', '')):
    return wrap[0] + scheme + user + host + port + path + query + frag + wrap[1]


def cases():
    for s in SCHEMES:
        yield url(scheme=s)
        yield url(scheme=s, host='WWW.Foo.com', path='')
    for u in USERINFO:
        yield url(user=u)
    for h in HOSTS:
        yield url(host=h)
        yield url(host=h, path='', query='?b&a')
    for p in PORTS:
        yield url(port=p)
        yield url(scheme='https://', port=p)
    for p in PATHS:
        yield url(path=p)
        yield url(scheme='', host='', path=p.lstrip('/'))
    for q in QUERIES:
        yield url(query=q)
        yield url(path='', query=q)
    for f in FRAGMENTS:
        yield url(frag=f)
        yield url(query='?a=1', frag=f)
    for w in WRAPS:
        yield url(wrap=w)
    yield from ['', ' ', '\t', 'filedesc://x.arc', 'filedescription', 'warcinfo:/x.warc.gz',
                'dns:www.example.org', 'urn:uuid:1234-ABCD', 'urn://a:b', 'metadata://x/y',
                'http://JavaScript:Wtop(\'www.pick2hand.com/index2.html\')', ':', '/',
                '//', '//x.com/a', '?', '#', 'a', 'A:', 'example.com:8080/x']
    rnd = random.Random(20240601)
    a32 = '0123456789abcdefghijklemopqrstuv'
    qtok = ['jsessionid=', 'JSESSIONID=', 'phpsessid=', 'sid=', a32, a32.upper(), a32[:31],
            '&', '&', '=', 'x', 'a=1', 'cfid=', '&cftoken=', '&CFTOKEN=', 'v', 'aspsessionid',
            'ASPSESSIONIDABCDEFGH=ABCDEFGHIJKLMNOPQRSTUVWX', 'ABCDEFGH',
            '=ABCDEFGHIJKLMNOPQRSTUVWX', '%26', '%3D']
    ptok = ['/', '/', '(', ')', 'S(', 'a(', 'abcdefghijklmnopqrstuvwx', ')/', '))/', '.aspx',
            '.ASPX', 'x', '..', '.', '(S(4hqa0555fwsecu455xqckv45))/',
            '(4hqa0555fwsecu455xqckv45)/', '%2F', '%28']
    for _ in range(300):
        yield url(query='?' + ''.join(rnd.choice(qtok) for _ in range(rnd.randint(1, 7))))
        yield url(path=''.join(rnd.choice(ptok) for _ in range(rnd.randint(1, 8))),
                  query=rnd.choice(['', '?q']))
    for _ in range(1000):
        yield url(scheme=rnd.choice(SCHEMES), user=rnd.choice(USERINFO), host=rnd.choice(HOSTS),
                  port=rnd.choice(PORTS), path=rnd.choice(PATHS), query=rnd.choice(QUERIES),
                  frag=rnd.choice(FRAGMENTS), wrap=rnd.choice(WRAPS))
    alphabet = list('aAzZ09.:/?#&=%@[]()-_~ \t+;,') + ['%41', '%2e', '%25', 'www.', 'http://',
                                                          '\u00e9', '\u4e2d', '..', '//']
    for _ in range(600):
        yield ''.join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 24)))


def main():
    seen = set()
    for u in cases():
        if u in seen:
            continue
        seen.add(u)
        print(json.dumps({'url': u, 'surt': canonicalize(u), 'url_key': canonicalize(u, False)}))


if __name__ == '__main__':
    main()
