/** One holder at a time; the others wait, first come first served. */
export class Turn<Holder> {
  holder: Holder | undefined;
  private readonly waiting: Array<{ holder: Holder; grant: () => void; refuse: (error: Error) => void }> = [];

  take(holder: Holder): Promise<void> {
    if (this.holder === undefined) {
      this.holder = holder;
      return Promise.resolve();
    }
    return new Promise((grant, refuse) => this.waiting.push({ holder, grant, refuse }));
  }

  /** A holder that waits no more (closed, or its worker died): its take is refused with `error`. */
  unqueue(holder: Holder, error: Error): void {
    for (let at = this.waiting.length - 1; at >= 0; at--) if (this.waiting[at]!.holder === holder) this.waiting.splice(at, 1)[0]!.refuse(error);
  }

  letGo(holder: Holder): void {
    if (this.holder !== holder) return;
    const next = this.waiting.shift();
    this.holder = next?.holder;
    next?.grant();
  }

  get idle(): boolean {
    return this.holder === undefined && this.waiting.length === 0;
  }
}
