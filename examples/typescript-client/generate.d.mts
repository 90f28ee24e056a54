export declare const EXAMPLE_SERVER: string;
export declare function documentText(doc: object): string;
export declare function typesText(doc: object): Promise<string>;
