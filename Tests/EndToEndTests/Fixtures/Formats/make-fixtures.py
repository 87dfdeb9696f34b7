#!/usr/bin/env python3
"""Writes the sample data in every format `bowties import` reads, for
ImportFormatTests: SampleData.{json,jsonl,csv,tsv,bplist}. Run from this
folder; the files are committed."""
import csv, json, plistlib

with open('../../../../SampleData/SampleData.plist', 'rb') as f:
    ties = plistlib.load(f)

def hexcolour(c):
    return '#%02X%02X%02X' % (c['red'], c['green'], c['blue'])

def jsonable(tie):
    out = {}
    for key, value in tie.items():
        if key == 'lastWorn':
            value = value.strftime('%Y-%m-%dT%H:%M:%SZ')
        elif key == 'tintColor':
            value = hexcolour(value)
        out[key] = value
    return out

records = [jsonable(t) for t in ties]
with open('SampleData.json', 'w') as f:
    json.dump(records, f, indent=2, ensure_ascii=False)
    f.write('\n')
with open('SampleData.jsonl', 'w') as f:
    for r in records:
        f.write(json.dumps(r, ensure_ascii=False) + '\n')
columns = ['id', 'name', 'searchKey', 'rating', 'timesWorn', 'lastWorn', 'isFavorite', 'url', 'tintColor', 'imageName']
for name, delimiter in (('SampleData.csv', ','), ('SampleData.tsv', '\t')):
    with open(name, 'w', newline='') as f:
        writer = csv.writer(f, delimiter=delimiter, lineterminator='\r\n')
        writer.writerow(columns)
        for r in records:
            writer.writerow([('true' if r[c] else 'false') if isinstance(r.get(c), bool) else r.get(c, '') for c in columns])
with open('SampleData.bplist', 'wb') as f:
    plistlib.dump(ties, f, fmt=plistlib.FMT_BINARY)
