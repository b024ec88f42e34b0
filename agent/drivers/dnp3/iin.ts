/** Internal indications (IEEE 1815-2012 §4.2.2.7.2): IIN1 then IIN2 in every response. */
export type Iin = {
  class1Events: boolean;
  class2Events: boolean;
  class3Events: boolean;
  needTime: boolean;
  deviceTrouble: boolean;
  deviceRestart: boolean;
  functionUnsupported: boolean;
  objectUnknown: boolean;
  parameterError: boolean;
  eventBufferOverflow: boolean;
};

export const IIN1 = {
  CLASS1_EVENTS: 0x02,
  CLASS2_EVENTS: 0x04,
  CLASS3_EVENTS: 0x08,
  NEED_TIME: 0x10,
  DEVICE_TROUBLE: 0x40,
  DEVICE_RESTART: 0x80,
} as const;

/** IIN1.7 DEVICE_RESTART is bit 7 of the IIN field, cleared by writing g80v1 index 7 = 0. */
export const RESTART_IIN_INDEX = 7;

export function decodeIin(iin1: number, iin2: number): Iin {
  return {
    class1Events: (iin1 & IIN1.CLASS1_EVENTS) !== 0,
    class2Events: (iin1 & IIN1.CLASS2_EVENTS) !== 0,
    class3Events: (iin1 & IIN1.CLASS3_EVENTS) !== 0,
    needTime: (iin1 & IIN1.NEED_TIME) !== 0,
    deviceTrouble: (iin1 & IIN1.DEVICE_TROUBLE) !== 0,
    deviceRestart: (iin1 & IIN1.DEVICE_RESTART) !== 0,
    functionUnsupported: (iin2 & 0x01) !== 0,
    objectUnknown: (iin2 & 0x02) !== 0,
    parameterError: (iin2 & 0x04) !== 0,
    eventBufferOverflow: (iin2 & 0x08) !== 0,
  };
}
