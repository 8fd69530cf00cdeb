import { Readable } from 'node:stream';
import {
  type BaseHttpClient,
  gotScraping,
  type HttpRequest,
  type HttpResponse,
  type RedirectHandler,
  type ResponseTypes,
  type StreamingHttpResponse,
} from 'crawlee';

type Headers = Record<string, string>;

function plainHeaders(headers: HttpRequest['headers']): Headers {
  const plain: Headers = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value !== undefined) plain[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return plain;
}

/**
 * A BaseHttpClient on node's fetch, which follows redirects itself: no hop is seen by anyone
 * before it is requested (fetch has no callback per hop, and tells only the final URL).
 */
export class FetchHttpClient implements BaseHttpClient {
  async sendRequest<T extends keyof ResponseTypes = 'text'>(
    request: HttpRequest<T>,
  ): Promise<HttpResponse<T>> {
    const response = await this.#fetch(request);
    const body = Buffer.from(await response.arrayBuffer());
    return {
      ...this.#data(response),
      request,
      body: (request.responseType === 'buffer' ? body : body.toString()) as ResponseTypes[T],
    } as HttpResponse<T>;
  }

  async stream(request: HttpRequest, _onRedirect?: RedirectHandler): Promise<StreamingHttpResponse> {
    const response = await this.#fetch(request);
    const stream = response.body === null ? Readable.from([]) : Readable.fromWeb(response.body as never);
    return {
      ...this.#data(response),
      request,
      stream,
      downloadProgress: { percent: 0, transferred: 0 },
      uploadProgress: { percent: 100, transferred: 0 },
    };
  }

  #fetch(request: HttpRequest<keyof ResponseTypes>): Promise<Response> {
    return fetch(request.url, {
      method: request.method ?? 'GET',
      headers: plainHeaders(request.headers),
      redirect: request.followRedirect === false ? 'manual' : 'follow',
      signal: request.signal,
    });
  }

  #data(response: Response) {
    return {
      url: response.url,
      redirectUrls: [],
      statusCode: response.status,
      statusMessage: response.statusText,
      headers: Object.fromEntries(response.headers),
      trailers: {},
      complete: true,
    };
  }
}

/**
 * A BaseHttpClient on got-scraping that passes on the options of Crawlee's HttpRequest interface
 * (not got's own `hooks`, which are no part of it) and calls `onRedirect` for every hop, as
 * Crawlee's own client does.
 */
export class GotInterfaceHttpClient implements BaseHttpClient {
  #options(request: HttpRequest<keyof ResponseTypes>): Record<string, unknown> {
    return {
      url: request.url,
      method: request.method,
      headers: request.headers,
      body: request.body,
      followRedirect: request.followRedirect,
      maxRedirects: request.maxRedirects,
      proxyUrl: request.proxyUrl,
      throwHttpErrors: request.throwHttpErrors ?? false,
      retry: { limit: 0 },
    };
  }

  async sendRequest<T extends keyof ResponseTypes = 'text'>(
    request: HttpRequest<T>,
  ): Promise<HttpResponse<T>> {
    const response = await gotScraping({
      ...this.#options(request),
      responseType: request.responseType,
    } as never);
    return response as unknown as HttpResponse<T>;
  }

  async stream(request: HttpRequest, onRedirect?: RedirectHandler): Promise<StreamingHttpResponse> {
    // Crawlee's gotScraping loads got-scraping lazily: the stream comes in a promise.
    const stream = (await gotScraping({
      ...this.#options(request),
      isStream: true,
    } as never)) as unknown as Readable & {
      on(event: 'redirect', listener: (options: never, response: never) => void): unknown;
      on(event: 'response', listener: (response: StreamingHttpResponse) => void): unknown;
      downloadProgress: StreamingHttpResponse['downloadProgress'];
      uploadProgress: StreamingHttpResponse['uploadProgress'];
    };
    return new Promise((resolve, reject) => {
      stream.on('redirect', (options: never, response: never) => onRedirect?.(response, options));
      stream.on('error', reject);
      stream.on('response', (response: StreamingHttpResponse) => {
        resolve({
          stream,
          request,
          url: response.url,
          redirectUrls: response.redirectUrls,
          statusCode: response.statusCode,
          headers: response.headers,
          trailers: response.trailers,
          complete: response.complete,
          downloadProgress: stream.downloadProgress,
          uploadProgress: stream.uploadProgress,
        });
      });
    });
  }
}
