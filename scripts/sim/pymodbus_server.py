#!/usr/bin/python3
"""A third-party Modbus peer for Caudal's tests: Debian's python3-pymodbus (3.0) as a TCP or RTU server.

Usage:
  pymodbus_server.py tcp PORT REGISTERS_JSON [SLAVE_IDS]     PORT 0 picks a free port
  pymodbus_server.py rtu DEVICE REGISTERS_JSON [SLAVE_IDS]   19200 baud, 8N1

REGISTERS_JSON: {"holding": {"0": 17142, ...}, "input": {...}, "coil": {"0": 1}, "discrete": {...}}
Addresses are zero-based protocol addresses; each table holds 10,000 entries, so a read past
address 9999 is answered with exception 2 (illegal data address). A request to a unit id not in
SLAVE_IDS gets no reply at all (pymodbus drops it), like a device that is not on the line.
Prints "READY <port>" (TCP) or "READY <device>" (RTU) on stdout once it serves requests.
"""
import asyncio
import json
import logging
import sys

from pymodbus.datastore import ModbusSequentialDataBlock, ModbusServerContext, ModbusSlaveContext
from pymodbus.server.async_io import ModbusSerialServer, ModbusTcpServer
from pymodbus.transaction import ModbusRtuFramer

SIZE = 10000


def block(values):
    data = [0] * SIZE
    for addr, value in values.items():
        data[int(addr)] = int(value)
    return ModbusSequentialDataBlock(0, data)


def context_from(registers_file, slave_ids):
    with open(registers_file, encoding="utf-8") as f:
        regs = json.load(f)
    slaves = {
        sid: ModbusSlaveContext(
            hr=block(regs.get("holding", {})),
            ir=block(regs.get("input", {})),
            co=block(regs.get("coil", {})),
            di=block(regs.get("discrete", {})),
            zero_mode=True,
        )
        for sid in slave_ids
    }
    return ModbusServerContext(slaves=slaves, single=False)


async def serve(mode, where, context):
    if mode == "tcp":
        server = ModbusTcpServer(context, address=("127.0.0.1", int(where)), allow_reuse_address=True)
        task = asyncio.create_task(server.serve_forever())
        await server.serving
        port = server.server.sockets[0].getsockname()[1]
        print(f"READY {port}", flush=True)
        await task
    else:
        server = ModbusSerialServer(context, framer=ModbusRtuFramer, port=where, baudrate=19200, timeout=0.05)
        await server.start()
        print(f"READY {where}", flush=True)
        await server.serve_forever()


def main():
    mode, where, registers_file = sys.argv[1], sys.argv[2], sys.argv[3]
    slave_ids = [int(s) for s in sys.argv[4].split(",")] if len(sys.argv) > 4 else [1]
    logging.basicConfig(level=logging.ERROR)
    try:
        asyncio.run(serve(mode, where, context_from(registers_file, slave_ids)))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
