#!/usr/bin/python3
"""A third-party Modbus peer for Caudal's tests: Debian's python3-pymodbus as a TCP or RTU server.

Usage:
  pymodbus_server.py tcp PORT REGISTERS_JSON [SLAVE_IDS]
  pymodbus_server.py rtu DEVICE REGISTERS_JSON [SLAVE_IDS]

REGISTERS_JSON: {"holding": {"0": 17142, ...}, "input": {...}, "coil": {"0": 1}, "discrete": {...}}
Addresses are zero-based protocol addresses. Prints READY on stdout once listening.
"""
import json
import logging
import sys
import threading

from pymodbus.datastore import ModbusSequentialDataBlock, ModbusServerContext, ModbusSlaveContext

SIZE = 10000


def block(values):
    data = [0] * SIZE
    for addr, value in values.items():
        data[int(addr)] = int(value)
    return ModbusSequentialDataBlock(0, data)


def main():
    mode, where, registers_file = sys.argv[1], sys.argv[2], sys.argv[3]
    slave_ids = [int(s) for s in sys.argv[4].split(",")] if len(sys.argv) > 4 else [1]
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
    context = ModbusServerContext(slaves=slaves, single=False)
    logging.basicConfig(level=logging.ERROR)

    # READY once the listener is up: announced from a timer since Start*Server blocks.
    threading.Timer(0.5, lambda: (print("READY", flush=True))).start()
    if mode == "tcp":
        from pymodbus.server import StartTcpServer

        StartTcpServer(context=context, address=("127.0.0.1", int(where)))
    else:
        from pymodbus.server import StartSerialServer
        from pymodbus.transaction import ModbusRtuFramer

        StartSerialServer(context=context, framer=ModbusRtuFramer, port=where, baudrate=19200, timeout=0.05)


if __name__ == "__main__":
    main()
